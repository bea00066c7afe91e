import { randomBytes } from 'node:crypto';
import type { ApiClient, ApiResponse } from '../support/api-client';

/**
 * Steady API traffic (reads and lead writes, a few requests at a time) through one client, noting
 * every answer by phase. Expected: 2xx, or 503 while a replica drains. A cut connection is retried,
 * as integrators' clients retry (GETs as they are, the POST with its Idempotency-Key), and the retry
 * must get an expected answer. Cuts are expected only of requests under way while a phase marked
 * `connectionsMayDrop` began or ran (a SIGKILLed gateway drops its sockets); others are listed apart.
 */
const KINDS = ['GET contacts', 'GET leads', 'POST lead'];
/** How long a retry keeps asking while it gets 409: past the 30 s lease of a killed gateway's claim. */
const HELD_KEY_PATIENCE_MS = 45_000;

interface Phase {
  name: string;
  startedAt: number;
  connectionsMayDrop: boolean;
}

export class TrafficProbe {
  private readonly phases: Phase[] = [{ name: 'before', startedAt: Date.now(), connectionsMayDrop: false }];
  answered = 0;
  private readonly outcomes = new Map<string, number>();
  private readonly problems: string[] = [];
  private readonly retried: string[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly api: ApiClient,
    private readonly concurrency = 3,
  ) {}

  /** Enters a phase; `connectionsMayDrop` when a gateway is killed without its drain. */
  enter(name: string, connectionsMayDrop = false): void {
    this.phases.push({ name, startedAt: Date.now(), connectionsMayDrop });
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
      const sentIn = this.phases.length - 1;
      const phase = this.phases[sentIn]!.name;
      const kind = (index + n) % 3;
      const send = this.request(kind);
      try {
        let response: ApiResponse;
        try {
          response = await send();
        } catch (error) {
          // A request sent late in one phase may be cut early in the next: what counts is every
          // phase it was under way in, not only the one it was sent in.
          const overlapped = this.phases.slice(sentIn);
          const now = overlapped[overlapped.length - 1]!;
          const where = `${KINDS[kind]}, sent in ${phase}, cut +${Date.now() - now.startedAt} ms into ${now.name}`;
          this.note(phase, 'connection cut, retried');
          if (!overlapped.some((p) => p.connectionsMayDrop))
            this.retried.push(`${new Date().toISOString()} ${(error as Error).message} (${where})`);
          const cutAt = Date.now();
          response = await this.retry(send);
          this.note(phase, `${KINDS[kind]} retried: ${response.status} after ${Math.round((Date.now() - cutAt) / 1000)} s`);
        }
        this.answered += 1;
        this.note(phase, String(response.status));
        const fine = response.status < 300 || (response.status === 503 && typeof response.body?.detail === 'string');
        if (!fine) this.problems.push(`${phase}: ${response.status} ${response.text.slice(0, 200)}`);
      } catch (error) {
        this.note(phase, 'retries failed');
        this.problems.push(`${phase}: ${(error as Error).message} (${KINDS[kind]}, retried)`);
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
   * Idempotency-Key: it runs on, or its gateway was killed before answering and the claim lapses
   * within its 30 s lease (a stopping gateway settles its keys before it exits). Asked again, as
   * the answer's detail says, for up to HELD_KEY_PATIENCE_MS.
   */
  private async retry(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
    const heldUntil = Date.now() + HELD_KEY_PATIENCE_MS;
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

  /** Connections cut under a request that overlapped no phase where they may drop, each retried. */
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
