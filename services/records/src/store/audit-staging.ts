/**
 * Where a single write's audit entry waits before it joins the log. In SQLite (WAL) a commit costs
 * about 10 µs for every page it changes, and an entry inserted into audit_entries changes one page
 * of each of its nine indexes: that was most of what the log added to a PATCH. So the entry is
 * committed with its change into audit_staged (no index but its id), and moved into audit_entries
 * with the others waiting in its workspace, up to 500 in one commit that inserts them there and
 * deletes them here: each index page it changes is shared by many entries.
 *
 * A move runs once 100 entries wait in a workspace, or 200 ms after the first (per process), and
 * before every read of the log (AuditRepository), so a read sees every entry committed before it.
 * An entry is in exactly one of the two collections at any time: the move is one commit, and two
 * replicas moving the same entries at once conflict on the inserted ids, so the later commit fails
 * whole and reads again. What a stopped process left waiting is moved by the next read or write in
 * its workspace, or at the next start (moveLeftovers).
 */
import type { Logger } from '@crm/observability';
import { StoreError, type DocumentStore } from '@crm/store';
import { auditEntries, auditStaged } from './audit-collections';

/** Entries moved in one commit. */
const MOVE_BATCH = 500;
/** Attempts of a move that found its entries moved by another replica meanwhile. */
const MOVE_ATTEMPTS = 5;

export interface AuditStagingOptions {
  /** Entries waiting in a workspace that start a move. */
  moveAt?: number;
  /** The longest an entry waits in this process before a move starts. */
  maxWaitMs?: number;
}

export class AuditStaging {
  private readonly waiting = new Map<string, { count: number; timer: NodeJS.Timeout }>();
  /** One move at a time per workspace; a move asked for while one runs runs after it. */
  private readonly moves = new Map<string, Promise<void>>();
  private readonly moveAt: number;
  private readonly maxWaitMs: number;

  constructor(
    private readonly store: DocumentStore,
    private readonly logger: Logger,
    options: AuditStagingOptions = {},
  ) {
    this.moveAt = options.moveAt ?? 100;
    this.maxWaitMs = options.maxWaitMs ?? 200;
  }

  /** `count` entries of the workspace were committed into audit_staged. */
  staged(workspaceId: string, count: number): void {
    const entry = this.waiting.get(workspaceId);
    if (entry) entry.count += count;
    else {
      const timer = setTimeout(() => this.moveQuietly(workspaceId), this.maxWaitMs);
      timer.unref();
      this.waiting.set(workspaceId, { count, timer });
    }
    if (this.waiting.get(workspaceId)!.count >= this.moveAt) this.moveQuietly(workspaceId);
  }

  /** Moves every entry waiting in the workspace (whichever process staged it) into the log; how many this call moved. */
  move(workspaceId: string): Promise<number> {
    const entry = this.waiting.get(workspaceId);
    if (entry) clearTimeout(entry.timer);
    this.waiting.delete(workspaceId);
    const previous = this.moves.get(workspaceId);
    const run = previous ? previous.then(() => this.moveAll(workspaceId)) : this.moveAll(workspaceId);
    const settled: Promise<void> = run.then(
      () => undefined,
      () => undefined,
    );
    this.moves.set(workspaceId, settled);
    void settled.then(() => {
      if (this.moves.get(workspaceId) === settled) this.moves.delete(workspaceId);
    });
    return run;
  }

  /** At start: the entries a stopped process left waiting, in every workspace. */
  async moveLeftovers(): Promise<number> {
    let moved = 0;
    for (;;) {
      const left = await this.store.findAcrossWorkspaces(auditStaged, { where: [], limit: MOVE_BATCH });
      const workspaces = new Set(left.map((entry) => entry.workspaceId));
      for (const workspaceId of workspaces) moved += await this.move(workspaceId);
      if (left.length < MOVE_BATCH) return moved;
    }
  }

  /** Waits for the moves under way (at shutdown). */
  async stop(): Promise<void> {
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    await Promise.allSettled([...this.moves.values()]);
  }

  private moveQuietly(workspaceId: string): void {
    this.move(workspaceId).catch((err: unknown) =>
      this.logger.warn({ err, workspaceId }, 'could not move audit entries into the log; the next read or write moves them'),
    );
  }

  private async moveAll(workspaceId: string): Promise<number> {
    const scoped = this.store.forWorkspace(workspaceId);
    let moved = 0;
    for (let attempt = 1; ;) {
      const batch = await scoped.find(auditStaged, { limit: MOVE_BATCH });
      if (batch.length === 0) return moved;
      try {
        await scoped.commit([
          ...batch.map((entry) => ({ kind: 'insert' as const, collection: auditEntries, document: { ...entry } })),
          { kind: 'deleteMany', collection: auditStaged, where: [{ field: 'id', op: 'in', values: batch.map((entry) => entry.id) }] },
        ]);
      } catch (error) {
        // Another replica moved some of them since the read: read again.
        if (!(error instanceof StoreError && error.code === 'duplicate') || ++attempt > MOVE_ATTEMPTS) throw error;
        continue;
      }
      moved += batch.length;
      if (batch.length < MOVE_BATCH) return moved;
    }
  }
}
