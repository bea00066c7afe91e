import { EventEmitter } from 'node:events';
import type { Logger } from '@crm/observability';
import type { InvalidationChannel, InvalidationEvent, InvalidationHandler } from './port';

const INVALIDATION = 'invalidation';

/** Invalidations within one process: enough when a single gateway runs without Redis. */
export class LocalInvalidationChannel implements InvalidationChannel {
  private readonly emitter = new EventEmitter();

  constructor(private readonly logger: Logger) {}

  async publish(event: InvalidationEvent): Promise<void> {
    this.deliver(event);
  }

  subscribe(handler: InvalidationHandler): () => void {
    this.emitter.on(INVALIDATION, handler);
    return () => this.emitter.off(INVALIDATION, handler);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }

  /** Every handler hears the event even when one of them throws. */
  deliver(event: InvalidationEvent): void {
    for (const handler of this.emitter.listeners(INVALIDATION) as InvalidationHandler[]) {
      try {
        handler(event);
      } catch (err) {
        this.logger.error({ err, event }, 'invalidation handler failed');
      }
    }
  }
}
