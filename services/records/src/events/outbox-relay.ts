/**
 * Publishes the outbox: domain events are inserted in the same commit as the change they
 * describe, and this relay sends the pending ones through the bus afterwards, then deletes them. It is poked right after each commit and also sweeps every few seconds (and once at
 * start), so an event whose publish was lost to a crash goes out on the next sweep or start.
 * Delivery is at least once; the message id is the outbox id, so consumers drop repeats.
 */
import type { MessageBus } from '@crm/bus';
import type { Logger } from '@crm/observability';
import type { DocumentStore } from '@crm/store';
import { withTraceContext } from '@crm/telemetry';
import { timestamp } from '../domain/clock';
import { outbox, outboxWorkspaces, type OutboxDocument } from '../store/collections';

export interface OutboxRelayOptions {
  sweepIntervalMs?: number;
  batchSize?: number;
}

export class OutboxRelay {
  private readonly registered = new Set<string>();
  /** One drain at a time per workspace keeps that workspace's events in order. */
  private readonly draining = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly sweepIntervalMs: number;
  private readonly batchSize: number;

  constructor(
    private readonly store: DocumentStore,
    private readonly bus: MessageBus,
    private readonly logger: Logger,
    options: OutboxRelayOptions = {},
  ) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? 5_000;
    this.batchSize = options.batchSize ?? 500;
  }

  /** Starts the periodic sweep, after one sweep for whatever an earlier run left pending. */
  async start(): Promise<void> {
    await this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.sweepIntervalMs);
    this.timer.unref();
  }

  /**
   * Records that `workspaceId` has outbox events, before the first commit that writes one, so the
   * sweep can find them. Idempotent; remembered per process.
   */
  async register(workspaceId: string): Promise<void> {
    if (this.registered.has(workspaceId)) return;
    await this.store.global().upsert(outboxWorkspaces, { id: workspaceId, registeredAt: timestamp(new Date()) }, {});
    this.registered.add(workspaceId);
  }

  /** Asks for the workspace's pending events to be published now (after a commit). */
  poke(workspaceId: string): void {
    if (this.stopped) return;
    void this.drain(workspaceId);
  }

  /** Publishes pending events of every known workspace. */
  async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      const workspaces = await this.store.global().find(outboxWorkspaces, {});
      for (const workspace of workspaces) await this.drain(workspace.id);
    } catch (error) {
      this.logger.warn({ err: error }, 'outbox sweep failed; will retry');
    }
  }

  drain(workspaceId: string): Promise<void> {
    const running = this.draining.get(workspaceId);
    if (running) {
      // A drain under way may have read its batch before this commit: run once more after it.
      this.again.add(workspaceId);
      return running;
    }
    const run = (async () => {
      try {
        do {
          this.again.delete(workspaceId);
          while (await this.publishBatch(workspaceId)) {
            /* keep going while full batches come back */
          }
        } while (this.again.has(workspaceId) && !this.stopped);
      } catch (error) {
        this.logger.warn({ err: error, workspaceId }, 'outbox publish failed; the sweep will retry');
      } finally {
        this.draining.delete(workspaceId);
      }
    })();
    this.draining.set(workspaceId, run);
    return run;
  }

  /** True when a full batch was published (there may be more). */
  private async publishBatch(workspaceId: string): Promise<boolean> {
    const scoped = this.store.forWorkspace(workspaceId);
    const pending = await scoped.find(outbox, {
      where: [{ field: 'status', op: 'eq', value: 'pending' }],
      sort: [{ field: 'createdAt', direction: 'asc' }],
      limit: this.batchSize,
    });
    // Publishes are issued in order on one channel and confirmed together, then removed in one write
    // (rewriting each as published cost more than the insert that made it).
    await Promise.all(pending.map((event) => withTraceContext(event.traceHeaders, () => this.bus.publish(toMessage(event)))));
    if (pending.length > 0) await scoped.deleteMany(outbox, [{ field: 'id', op: 'in', values: pending.map((event) => event.id) }]);
    return pending.length === this.batchSize;
  }

  /** Stops sweeping and waits for publishes under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.draining.values()]);
  }
}

function toMessage(event: OutboxDocument) {
  return {
    id: event.id,
    type: event.type,
    correlationId: event.correlationId,
    occurredAt: event.occurredAt,
    payload: event.payload,
  };
}
