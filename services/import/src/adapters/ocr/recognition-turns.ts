/**
 * Turns for a costly piece of work: at most `atOnce` run, at most `maxWaiting` wait in line (more
 * is a 503, so a burst of uploads cannot pile up memory), and a waiter whose caller has gone (its
 * gRPC call cancelled or past its deadline) leaves the line instead of running for nobody.
 */
import { DomainError } from '@crm/observability';

export class RecognitionTurns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly atOnce: number,
    private readonly maxWaiting: number,
    private readonly busyMessage = 'Text recognition is busy; try again shortly.',
  ) {}

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw new DomainError('unavailable', 'The request was cancelled.');
    if (this.running < this.atOnce) this.running += 1;
    else await this.waitTurn(signal);
    try {
      return await work();
    } finally {
      // A finishing run hands its turn straight to the next in line.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  private waitTurn(signal: AbortSignal | undefined): Promise<void> {
    if (this.waiting.length >= this.maxWaiting) {
      return Promise.reject(new DomainError('unavailable', this.busyMessage));
    }
    return new Promise<void>((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        const index = this.waiting.indexOf(start);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(new DomainError('unavailable', 'The request was cancelled.'));
      };
      this.waiting.push(start);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }
}
