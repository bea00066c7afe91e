/**
 * API key usage, counted in memory per key per UTC day and sent to auth in one batch every 10 s
 * and at shutdown, so a request never costs a database write.
 */
import { apiTimestamp } from '@crm/vocabulary';
import type { Logger } from '@crm/observability';
import type { authV1 } from '@crm/grpc';
import { GRPC_DEADLINE_MS, type AuthClient } from '../clients/auth-client';

/** Entries kept across failed flushes before the oldest counts are dropped (auth down for long). */
const MAX_PENDING = 50_000;

export class ApiKeyUsageRecorder {
  private pending = new Map<string, authV1.ApiKeyUsageEntry>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly auth: AuthClient,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(intervalMs = 10_000): void {
    this.timer ??= setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  record(keyId: string): void {
    const at = apiTimestamp(this.now());
    const day = at.slice(0, 10);
    const slot = `${keyId}|${day}`;
    const entry = this.pending.get(slot);
    if (entry) {
      entry.count += 1;
      entry.lastUsedAt = at;
    } else if (this.pending.size < MAX_PENDING) {
      this.pending.set(slot, { keyId, day, count: 1, lastUsedAt: at });
    }
  }

  /** Sends what has been counted; on failure the counts are kept for the next attempt. */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
  }

  private async send(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.auth.call('RecordApiKeyUsage', { entries: [...batch.values()] }, {}, { timeoutMs: GRPC_DEADLINE_MS });
    } catch (error) {
      this.logger.warn({ err: error, entries: batch.size }, 'could not record API key usage; will retry');
      for (const [slot, entry] of batch) {
        const newer = this.pending.get(slot);
        if (newer) {
          newer.count += entry.count;
        } else if (this.pending.size < MAX_PENDING) {
          this.pending.set(slot, entry);
        }
      }
    }
  }
}
