import { randomBytes } from 'node:crypto';
import type { ApiClient, ApiResponse } from '../support/api-client';

/**
 * Steady API traffic (reads and lead writes, a few requests at a time) through one client, noting
 * every answer by phase. Expected: 2xx, or 503 while a replica drains. A failed connection is
 * expected only in a phase marked `connectionsMayDrop` (a SIGKILLed gateway drops its sockets);
 * elsewhere a cut connection is retried, as HTTP/1.1 clients retry idempotent requests (the POST
 * carries an Idempotency-Key), and the retry must get an expected answer. Cuts are listed apart.
 */
const KINDS = ['GET contacts', 'GET leads', 'POST lead'];

export class TrafficProbe {
  phase = 'before';
  private phaseStartedAt = Date.now();
  answered = 0;
  private readonly outcomes = new Map<string, number>();
  private readonly problems: string[] = [];
  private readonly retried: string[] = [];
  private readonly droppingPhases = new Set<string>();
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly api: ApiClient,
    private readonly concurrency = 3,
  ) {}

  /** Enters a phase; `connectionsMayDrop` when a gateway is killed without its drain. */
  enter(phase: string, connectionsMayDrop = false): void {
    this.phase = phase;
    this.phaseStartedAt = Date.now();
    if (connectionsMayDrop) this.droppingPhases.add(phase);
  }

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.concurrency }, (_, i) => this.loop(i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(index: number): Promise<void> {
    for (let n = 0; this.running; n++) {
      const phase = this.phase;
      const kind = (index + n) % 3;
      const send = this.request(kind);
      try {
        let response: ApiResponse;
        try {
          response = await send();
        } catch (error) {
          if (this.droppingPhases.has(phase)) throw error;
          // A cut connection is retried as an integrator's client does: GETs as they are, the POST
          // with its Idempotency-Key, so the retry answers what the first attempt did, never twice.
          this.note(phase, 'connection cut, retried');
          this.retried.push(
            `${phase}: ${(error as Error).message} (${KINDS[kind]}, +${Date.now() - this.phaseStartedAt} ms into the phase)`,
          );
          response = await this.retry(send);
        }
        this.answered += 1;
        this.note(phase, String(response.status));
        const fine = response.status < 300 || (response.status === 503 && typeof response.body?.detail === 'string');
        if (!fine) this.problems.push(`${phase}: ${response.status} ${response.text.slice(0, 200)}`);
      } catch (error) {
        this.note(phase, 'connection failed');
        if (!this.droppingPhases.has(phase))
          this.problems.push(
            `${phase}: ${(error as Error).message} (${KINDS[kind]}, +${Date.now() - this.phaseStartedAt} ms into the phase)`,
          );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** One request of the mix, ready to be sent again unchanged. */
  private request(kind: number): () => Promise<ApiResponse> {
    if (kind === 0) return () => this.api.get('/api/contacts/?limit=1');
    if (kind === 1) return () => this.api.get('/api/leads/?limit=1');
    const email = `probe-${randomBytes(5).toString('hex')}@example.com`;
    const headers = { 'idempotency-key': `probe-${email}` };
    return () => this.api.post('/api/leads/', { firstName: 'Probe', lastName: 'Traffic', email, company: 'Probe Co' }, { headers });
  }

  /**
   * Up to 5 more tries after a cut, 500 ms apart. A 409 says the first attempt still holds the
   * Idempotency-Key (it runs on, or its gateway stopped before answering and the key lapses 30 s
   * later): asked again, as the answer's detail says, for up to 45 s.
   */
  private async retry(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
    const heldUntil = Date.now() + 45_000;
    for (let cuts = 0; ;) {
      await new Promise((r) => setTimeout(r, 500));
      try {
        const response = await send();
        if (response.status !== 409 || Date.now() > heldUntil) return response;
      } catch (error) {
        if (++cuts >= 5) throw error;
      }
    }
  }

  private note(phase: string, outcome: string): void {
    const key = `${phase} ${outcome}`;
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
  }

  /** Connections cut under a request outside a phase where they may drop, each retried. */
  cutAndRetried(): string[] {
    return this.retried.slice(0, 20);
  }

  /** Answers that break the rule, with their phase. */
  unexpected(): string[] {
    return this.problems.slice(0, 20);
  }

  summary(): string {
    return [...this.outcomes].map(([key, count]) => `${key}: ${count}`).join(', ');
  }
}
