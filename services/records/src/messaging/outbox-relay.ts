/**
 * Publishes the outbox: domain events are inserted in the same commit as the change they
 * describe, and this relay sends the pending ones through the bus afterwards, then deletes them.
 * It is poked right after each commit and also sweeps every few seconds (and once at start), so an
 * event whose publish was lost to a crash goes out on the next sweep or start. A sweep visits only
 * the workspaces marked as having events (`pendingMark`, set in the commit that writes them) and
 * clears the mark of those it finds with none left, so its cost follows the work pending, not the
 * number of workspaces; the start also looks at every workspace once, for events kept from before
 * marks existed.
 *
 * With several replicas, a workspace's events are relayed by one replica at a time, the holder of
 * its lease (relay-lease.ts), which keeps them in order. A replica whose poke finds the lease held
 * leaves its events to the holder, which looks for pending events again after giving the lease up,
 * and tries again itself when that lease would lapse (a holder that died).
 * Delivery is at least once; the message id is the outbox id, so consumers drop repeats.
 * A read takes 500 events, or 16 while a heavy one waits (a group of up to about 1 MB; see
 * HEAVY_EVENT_JSON_LENGTH), so memory follows neither the backlog nor the events' size. (A heavy
 * event committed between that count and the read can still come in a read of 500: the few of
 * one such moment, not a backlog.)
 * The batch the holder takes is also numbered into the change feed in the unit that deletes it
 * (feed-numbering.ts), so the feed's order is the relay's: one holder at a time, oldest first.
 *
 * Publishes are mandatory: an event is deleted only once the broker has put it in at least one
 * queue. One that no queue took (automation's queues not declared yet on a fresh install, deleted,
 * or mid blue/green switch) is kept as `unroutable` and left out of the pending batches, so it
 * holds up nothing; the sweep tries the workspace's unroutable events again, oldest first, after a
 * wait that grows while they stay unroutable (and at once when a batch of the workspace was taken
 * whole, the sign that the queues are back), so they are delivered once a queue is bound.
 */
import { apiTimestamp } from '@crm/vocabulary';
import { UnroutableMessageError, type MessageBus } from '@crm/bus';
import type { Logger } from '@crm/observability';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DocumentStore, WriteOp } from '@crm/store';
import { counter, withTraceContext } from '@crm/telemetry';
import { outbox, outboxWorkspaces, type OutboxDocument } from '../store/collections';
import { numberForFeed } from './feed-numbering';
import { RelayLease } from './relay-lease';

const publishFailures = counter(
  'outbox_publish_failures_total',
  'Outbox batches that could not be published and stay pending, by reason (unroutable: no queue is bound to an event type, e.g. automation not deployed; error: anything else).',
  ['reason'],
);

export interface OutboxRelayOptions {
  sweepIntervalMs?: number;
  /** Events read and published at a time. */
  batchSize?: number;
  /** Events read at a time while a heavy one (a group, HEAVY_EVENT_JSON_LENGTH or more) waits: up to about 1 MB each. */
  heavyBatchSize?: number;
  /** How long a workspace's relay lease lasts unless renewed: a dead holder's is taken over after it. */
  leaseMs?: number;
  /** This replica's name on its leases; unique per process. */
  holder?: string;
}

export class OutboxRelay {
  private readonly registered = new Set<string>();
  /** One drain at a time per workspace keeps that workspace's events in order. */
  private readonly draining = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** Retries for workspaces whose lease another replica held, due when that lease would lapse. */
  private readonly retries = new Map<string, NodeJS.Timeout>();
  /** Workspaces with unroutable events: when the sweep tries them again, and the wait after that. */
  private readonly unroutable = new Map<string, { dueAt: number; waitMs: number; types: Set<string> }>();
  /** Workspaces whose unroutable events the drain under way should try (asked by the sweep). */
  private readonly unroutableWanted = new Set<string>();
  private readonly lease: RelayLease;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly sweepIntervalMs: number;
  private readonly batchSize: number;
  private readonly heavyBatchSize: number;

  constructor(
    private readonly store: DocumentStore,
    private readonly bus: MessageBus,
    private readonly logger: Logger,
    options: OutboxRelayOptions = {},
  ) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? 5_000;
    this.batchSize = options.batchSize ?? 500;
    this.heavyBatchSize = Math.min(this.batchSize, options.heavyBatchSize ?? 16);
    this.lease = new RelayLease(store, options.holder ?? `${hostname()}:${process.pid}:${randomUUID()}`, options.leaseMs ?? 5_000);
  }

  /** Starts the periodic sweep, after one sweep for whatever an earlier run left pending. */
  async start(): Promise<void> {
    await this.markLeftovers();
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
    await this.store.global().upsert(outboxWorkspaces, { id: workspaceId, registeredAt: apiTimestamp(new Date()) }, {});
    this.registered.add(workspaceId);
  }

  /** Asks for the workspace's pending events to be published now (after a commit). */
  poke(workspaceId: string): void {
    if (this.stopped) return;
    void this.drain(workspaceId);
  }

  /** Publishes pending events of every workspace marked as having some, and unmarks those left with none. */
  async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      const workspaces = await this.store.global().find(outboxWorkspaces, {
        // A range in its own order rather than `exists`, so that the read walks the pendingMark index (marks are never empty).
        where: [{ field: 'pendingMark', op: 'gt', value: '' }],
        sort: [{ field: 'pendingMark', direction: 'asc' }],
      });
      const now = Date.now();
      for (const workspace of workspaces) {
        // Also when this process knows of none (it restarted): a count finds out.
        const unroutable = await this.hasUnroutable(workspace.id);
        if (unroutable && (this.unroutable.get(workspace.id)?.dueAt ?? 0) <= now) this.unroutableWanted.add(workspace.id);
        await this.drain(workspace.id);
        // Kept while unroutable events wait for their queue; cleared only if no commit has marked it since it was read.
        if (!unroutable && !this.stopped && !(await this.hasPending(workspace.id))) {
          await this.store
            .global()
            .update(
              outboxWorkspaces,
              workspace.id,
              { unset: ['pendingMark'] },
              { where: [{ field: 'pendingMark', op: 'eq', value: workspace.pendingMark! }] },
            );
        }
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'outbox sweep failed; will retry');
    }
  }

  /** At start: marks every workspace holding events, written before marks existed or by an older version. */
  private async markLeftovers(): Promise<void> {
    try {
      for (const workspace of await this.store.global().find(outboxWorkspaces, {})) {
        if (workspace.pendingMark || (await this.store.forWorkspace(workspace.id).count(outbox)) === 0) continue;
        await this.store.global().update(outboxWorkspaces, workspace.id, { set: { pendingMark: `start:${randomUUID()}` } });
      }
    } catch (error) {
      this.logger.warn(
        { err: error },
        'outbox start-up look at every workspace failed; events kept from before marks wait for the next write',
      );
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
          await this.relayPending(workspaceId);
        } while (this.again.has(workspaceId) && !this.stopped);
      } catch (error) {
        publishFailures.inc({ reason: 'error' });
        this.logger.warn({ err: error, workspaceId }, 'outbox publish failed; the sweep will retry');
      } finally {
        this.draining.delete(workspaceId);
      }
    })();
    this.draining.set(workspaceId, run);
    return run;
  }

  /** Publishes the workspace's pending events (and unroutable ones, when asked) under its lease, until none are left. */
  private async relayPending(workspaceId: string): Promise<void> {
    while (!this.stopped && (this.unroutableWanted.has(workspaceId) || (await this.hasPending(workspaceId)))) {
      const attempt = await this.lease.acquire(workspaceId);
      if (!attempt.held) {
        this.retryWhenLapsed(workspaceId, attempt.expiresAt);
        return;
      }
      let lost = false;
      const stopRenewing = this.lease.keepRenewed(workspaceId, () => {
        lost = true;
      });
      try {
        if (this.unroutableWanted.delete(workspaceId)) await this.publishBatch(workspaceId, 'unroutable');
        // A lost lease (another replica took it over) fails the batch's commit; stop there too.
        while (!lost && (await this.publishBatch(workspaceId, 'pending'))) {
          /* keep going while full batches come back */
        }
      } catch (error) {
        await this.lease.release(workspaceId).catch(() => undefined);
        throw error;
      } finally {
        stopRenewing();
      }
      // Loops to look again: a commit whose poke found our lease taken left its events to us.
    }
  }

  /**
   * Counted on the (status, createdAt) index rather than read: a pending event can be an import
   * batch's contacts_created of 500 contacts (~250 KB of JSON), which a read would parse for nothing.
   */
  private async hasPending(workspaceId: string): Promise<boolean> {
    return (await this.store.forWorkspace(workspaceId).count(outbox, [{ field: 'status', op: 'eq', value: 'pending' }])) > 0;
  }

  private async hasUnroutable(workspaceId: string): Promise<boolean> {
    return (await this.store.forWorkspace(workspaceId).count(outbox, [{ field: 'status', op: 'eq', value: 'unroutable' }])) > 0;
  }

  private retryWhenLapsed(workspaceId: string, expiresAt: number): void {
    if (this.retries.has(workspaceId) || this.stopped) return;
    const timer = setTimeout(
      () => {
        this.retries.delete(workspaceId);
        void this.drain(workspaceId);
      },
      Math.max(0, expiresAt - Date.now()) + 50,
    );
    timer.unref();
    this.retries.set(workspaceId, timer);
  }

  /**
   * True when a full batch of pending events was published (there may be more). Its deletion
   * renews the lease, or gives it up after the last batch, in one unit: a holder that lost its
   * lease deletes nothing. Events no queue took are kept as `unroutable`; any other failure is
   * thrown after the events taken are deleted.
   */
  private async publishBatch(workspaceId: string, status: 'pending' | 'unroutable'): Promise<boolean> {
    const scoped = this.store.forWorkspace(workspaceId);
    const waiting = [{ field: 'status', op: 'eq', value: status } as const];
    // A count on the (status, heavy) index keeps a read of groups, about 1 MB each, to a few of them.
    const heavy = await scoped.count(outbox, [...waiting, { field: 'heavy', op: 'eq', value: true }]);
    const limit = heavy > 0 ? this.heavyBatchSize : this.batchSize;
    const pending = await scoped.find(outbox, { where: waiting, sort: [{ field: 'createdAt', direction: 'asc' }], limit });
    // Publishes are issued in order on one channel and confirmed together, then removed in one write
    // (rewriting each as published cost more than the insert that made it). Mandatory: an event no
    // queue took (automation's queues not declared yet, or deleted) fails the batch, which stays
    // pending until a sweep finds the queues bound.
    const outcomes = await Promise.allSettled(
      // Another service's event is on the bus already: it is here only for its place in the feed.
      pending.map((event) =>
        event.external
          ? Promise.resolve()
          : withTraceContext(event.traceHeaders, () => this.bus.publish(toMessage(event), { mandatory: true })),
      ),
    );
    const taken = pending.filter((_event, i) => outcomes[i]!.status === 'fulfilled').map((event) => event.id);
    const unroutable = pending.filter((_event, i) => rejectedWith(outcomes[i]!) instanceof UnroutableMessageError).map((event) => event.id);
    const failure = outcomes.map(rejectedWith).find((reason) => reason !== undefined && !(reason instanceof UnroutableMessageError));
    const full = status === 'pending' && pending.length === limit && failure === undefined;
    const writes: WriteOp[] = [];
    if (taken.length > 0) writes.push({ kind: 'deleteMany', collection: outbox, where: [{ field: 'id', op: 'in', values: taken }] });
    if (status === 'pending' && unroutable.length > 0) {
      writes.push({
        kind: 'updateMany',
        collection: outbox,
        where: [{ field: 'id', op: 'in', values: unroutable }],
        change: { set: { status: 'unroutable' } },
      });
    }
    // The events leaving `pending` take their feed positions in this unit (feed-numbering.ts); unroutable ones got theirs then.
    const feed =
      status === 'pending'
        ? await numberForFeed(
            this.store,
            workspaceId,
            pending.filter(
              (_event, i) => outcomes[i]!.status === 'fulfilled' || rejectedWith(outcomes[i]!) instanceof UnroutableMessageError,
            ),
          )
        : undefined;
    if (feed) writes.push(...feed.writes);
    // An unroutable batch is followed by the pending ones under the same lease, which give it up.
    await scoped.commit([...writes, this.lease.renewal(workspaceId, status === 'pending' && !full, feed?.advance)]);
    if (unroutable.length > 0)
      this.noteUnroutable(
        workspaceId,
        status,
        pending.filter((event) => unroutable.includes(event.id)),
      );
    else if (pending.length > 0 && failure === undefined) this.noteRoutable(workspaceId, status, pending, pending.length === limit);
    if (failure !== undefined) throw failure;
    return full;
  }

  /**
   * Some events found no queue. New ones are tried again by the sweep when the workspace's wait is
   * over; a retry that finds no queue again doubles the wait, up to a minute.
   */
  private noteUnroutable(workspaceId: string, status: 'pending' | 'unroutable', events: OutboxDocument[]): void {
    publishFailures.inc({ reason: 'unroutable' });
    const previous = this.unroutable.get(workspaceId);
    const types = previous?.types ?? new Set<string>();
    for (const event of events) types.add(event.type);
    if (status === 'unroutable') {
      const waitMs = Math.min(60_000, (previous?.waitMs ?? this.sweepIntervalMs) * 2);
      this.unroutable.set(workspaceId, { dueAt: Date.now() + waitMs, waitMs, types });
      return;
    }
    const waitMs = previous?.waitMs ?? this.sweepIntervalMs;
    this.unroutable.set(workspaceId, { dueAt: previous?.dueAt ?? Date.now() + waitMs, waitMs, types });
    this.logger.warn(
      { workspaceId, count: events.length, types: [...new Set(events.map((event) => event.type))] },
      'no queue is bound for outbox events; they are kept and tried again by the sweep',
    );
  }

  /** Every event of a batch was taken. */
  private noteRoutable(workspaceId: string, status: 'pending' | 'unroutable', events: OutboxDocument[], full: boolean): void {
    const entry = this.unroutable.get(workspaceId);
    if (!entry) return;
    if (status === 'unroutable') {
      // All taken: none left, or the next sweep goes on with the rest.
      if (full) this.unroutable.set(workspaceId, { dueAt: 0, waitMs: this.sweepIntervalMs, types: entry.types });
      else this.unroutable.delete(workspaceId);
      return;
    }
    // A type that found no queue before was taken now: its queues are back, so the kept ones go at once.
    if (events.some((event) => entry.types.has(event.type))) {
      this.unroutable.set(workspaceId, { dueAt: 0, waitMs: this.sweepIntervalMs, types: new Set() });
      this.unroutableWanted.add(workspaceId);
    }
  }

  /** Stops sweeping and waits for publishes under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const retry of this.retries.values()) clearTimeout(retry);
    this.retries.clear();
    await Promise.all([...this.draining.values()]);
  }
}

function rejectedWith(outcome: PromiseSettledResult<void>): unknown {
  return outcome.status === 'rejected' ? (outcome.reason ?? new Error('publish failed')) : undefined;
}

function toMessage(event: OutboxDocument) {
  return {
    id: event.id,
    type: event.type,
    correlationId: event.correlationId,
    occurredAt: event.occurredAt,
    payload: event.payload,
    ...(event.cause ? { cause: event.cause } : {}),
  };
}
