/**
 * Bulk work's own lane (issue 36 item 8): a few bulk calls at a time (one on SQLite), each started
 * only after the event loop has turned a few times, so interactive calls that arrived meanwhile run
 * first. A call's commit (`BulkCall.commit`) leaves the lane to the next call, so that call's reads
 * and checks run while the commit does, as one commit at a time still does.
 *
 * The SQLite store answers synchronously: a bulk call (an import's batch of contacts) runs from its
 * first read to its commit without letting the event loop poll (its commit, the longest part, runs
 * on the store's write thread where there is one), and calls whose data arrived in the same poll
 * run back to back. Without the lane another workspace's list waited behind every batch
 * that had arrived with it. A gRPC call takes more than one turn to reach its handler and answer
 * (headers, message and reply are separate reads and writes), so the lane is handed on after
 * several turns, not one: with nothing else to do those turns cost microseconds. Where reads run
 * on worker threads (SQLite's read workers), a read's answer comes back on a later turn, however
 * many turns pass meanwhile: so a bulk call also waits, a short while at most, for the reads
 * running to come back (`readsSettled`).
 */
import { gauge } from '@crm/telemetry';

export const TURNS_BETWEEN_BULK_CALLS = 4;
/** At most this long a bulk call waits for the reads running off the event loop (a list's takes a few ms). */
export const READS_SETTLE_MAX_MS = 25;

const waitingCalls = gauge('records_bulk_calls_waiting', 'Bulk calls (batch creates and batch writes) waiting for the bulk lane.', []);

/** A bulk call in the lane. */
export interface BulkCall {
  /**
   * Runs the call's commit, the last of its work: the lane goes on to the next bulk call meanwhile,
   * whose reads and checks then overlap this commit on the store's write thread. Commits run
   * `width` at a time, in the order they came, so an interactive write waits behind that many at
   * most. Work after a commit (a retried attempt) runs outside the lane.
   */
  commit<R>(write: () => Promise<R>): Promise<R>;
}

export class BulkLane {
  /** Calls past their checks, waiting for or making their commits, count here too: at most twice the width in all. */
  private readonly calls: Slots;
  private readonly checking: Slots;
  private readonly committing: Slots;

  /**
   * `width`: bulk calls checking at once, and committing at once (1 where the store answers
   * synchronously; more where a call waits on the network). `readsSettled`: the store's
   * (DocumentStore.readsSettled).
   */
  constructor(
    width = 1,
    private readonly readsSettled: (maxWaitMs: number) => Promise<void> = async () => undefined,
  ) {
    this.calls = new Slots(2 * width);
    this.checking = new Slots(width);
    this.committing = new Slots(width);
  }

  /** Runs `work` when the lane has room, after TURNS_BETWEEN_BULK_CALLS turns of the event loop. */
  async run<T>(work: (call: BulkCall) => Promise<T>): Promise<T> {
    await this.calls.take();
    let checking = false;
    const leaveChecks = () => {
      if (checking) this.checking.give();
      checking = false;
    };
    try {
      await this.checking.take();
      checking = true;
      await this.handOn();
      return await work({
        commit: async (write) => {
          leaveChecks();
          await this.committing.take();
          try {
            return await write();
          } finally {
            this.committing.give();
          }
        },
      });
    } finally {
      leaveChecks();
      this.calls.give();
    }
  }

  /** Calls waiting for the lane. */
  get queued(): number {
    return this.calls.waiting + this.checking.waiting;
  }

  /**
   * The interactive calls that arrived go first, then the reads they started: the turns pass in
   * microseconds, a read on a worker takes milliseconds.
   */
  private async handOn(): Promise<void> {
    await new Promise<void>((resolve) => afterTurns(TURNS_BETWEEN_BULK_CALLS, resolve));
    await this.readsSettled(READS_SETTLE_MAX_MS);
  }
}

/** `width` places, given in the order they were asked for. */
class Slots {
  private taken = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly width: number) {}

  get waiting(): number {
    return this.queue.length;
  }

  take(): Promise<void> {
    if (this.taken < this.width) {
      this.taken += 1;
      return Promise.resolve();
    }
    waitingCalls.inc();
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** The place goes to the next waiting, which keeps it (the count stays), or is given back. */
  give(): void {
    const next = this.queue.shift();
    if (!next) this.taken -= 1;
    else {
      waitingCalls.dec();
      next();
    }
  }
}

/** Calls `then` from the check phase of the `turns`-th turn of the event loop from now (each turn polls for I/O first). */
function afterTurns(turns: number, then: () => void): void {
  setImmediate(() => (turns <= 1 ? then() : afterTurns(turns - 1, then)));
}
