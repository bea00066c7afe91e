/**
 * Bulk work's own lane (issue 36 item 8): one bulk call at a time, each started only after the
 * event loop has turned a few times, so interactive calls that arrived meanwhile run first.
 *
 * The SQLite store answers synchronously: a bulk call (an import's batch of contacts) runs from its
 * first read to its commit without letting the event loop poll, and calls whose data arrived in the
 * same poll run back to back. Without the lane another workspace's list waited behind every batch
 * that had arrived with it. A gRPC call takes more than one turn to reach its handler and answer
 * (headers, message and reply are separate reads and writes), so the lane is handed on after
 * several turns, not one: with nothing else to do those turns cost microseconds.
 */
export const TURNS_BETWEEN_BULK_CALLS = 4;

export class BulkLane {
  private running = false;
  private readonly waiting: (() => void)[] = [];

  /** Runs `work` when the lane is free, after TURNS_BETWEEN_BULK_CALLS turns of the event loop. */
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
    if (this.running) return new Promise((resolve) => this.waiting.push(resolve));
    this.running = true;
    return new Promise((resolve) => afterTurns(TURNS_BETWEEN_BULK_CALLS, resolve));
  }

  private leave(): void {
    const next = this.waiting.shift();
    if (next) afterTurns(TURNS_BETWEEN_BULK_CALLS, next);
    else this.running = false;
  }
}

/** Calls `then` from the check phase of the `turns`-th turn of the event loop from now (each turn polls for I/O first). */
function afterTurns(turns: number, then: () => void): void {
  setImmediate(() => (turns <= 1 ? then() : afterTurns(turns - 1, then)));
}
