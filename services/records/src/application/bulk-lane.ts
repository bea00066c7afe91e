/**
 * Bulk work's own lane (issue 36 item 8): a few bulk calls at a time (one on SQLite), each started
 * only after the event loop has turned a few times, so interactive calls that arrived meanwhile run
 * first.
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

export class BulkLane {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  /**
   * `width`: bulk calls at once (1 where the store answers synchronously; more where a call waits
   * on the network). `readsSettled`: the store's (DocumentStore.readsSettled).
   */
  constructor(
    private readonly width = 1,
    private readonly readsSettled: (maxWaitMs: number) => Promise<void> = async () => undefined,
  ) {}

  /** Runs `work` when the lane has room, after TURNS_BETWEEN_BULK_CALLS turns of the event loop. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  /** Calls waiting for the lane. */
  get queued(): number {
    return this.waiting.length;
  }

  private enter(): Promise<void> {
    if (this.running >= this.width) {
      waitingCalls.inc();
      return new Promise((resolve) => this.waiting.push(resolve));
    }
    this.running += 1;
    return this.handOn();
  }

  /**
   * The interactive calls that arrived go first, then the reads they started: the turns pass in
   * microseconds, a read on a worker takes milliseconds.
   */
  private async handOn(): Promise<void> {
    await new Promise<void>((resolve) => afterTurns(TURNS_BETWEEN_BULK_CALLS, resolve));
    await this.readsSettled(READS_SETTLE_MAX_MS);
  }

  /** The place goes to the next call waiting, which keeps it (the count stays), or is given back. */
  private leave(): void {
    const next = this.waiting.shift();
    if (next) waitingCalls.dec();
    if (next) void this.handOn().then(next);
    else this.running -= 1;
  }
}

/** Calls `then` from the check phase of the `turns`-th turn of the event loop from now (each turn polls for I/O first). */
function afterTurns(turns: number, then: () => void): void {
  setImmediate(() => (turns <= 1 ? then() : afterTurns(turns - 1, then)));
}
