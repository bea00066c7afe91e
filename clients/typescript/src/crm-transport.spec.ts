import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CrmClient } from './crm-client';
import { CrmApiError, CrmValidationError } from './crm-error';

/** A stand-in gateway on node:http: each test says how it answers; every request it saw is kept. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Handler = (seen: Seen, res: ServerResponse, index: number) => void;

let server: Server;
let baseUrl: string;
let handler: Handler;
let seen: Seen[];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(request);
      handler(request, res, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
});

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const contact = { id: 'cnt_1', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };

function client(waits: number[] = [], overrides: Partial<ConstructorParameters<typeof CrmClient>[0]> = {}): CrmClient {
  return new CrmClient({
    baseUrl,
    credentials: { apiKey: 'crm_key' },
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...overrides,
  });
}

describe('CrmClient retries', () => {
  it('waits the Retry-After of a 429 and then gets the answer', async () => {
    handler = (_seen, res, i) => (i === 0 ? json(res, 429, { detail: 'slow down' }, { 'retry-after': '2' }) : json(res, 200, contact));
    const waits: number[] = [];
    await expect(client(waits).contacts.get('cnt_1')).resolves.toEqual(contact);
    expect(waits).toEqual([2000]);
  });

  it('sends one Idempotency-Key with every attempt of a POST through 503s and connection resets', async () => {
    handler = (_seen, res, i) => {
      if (i === 0) res.socket?.destroy();
      else if (i === 1) json(res, 503, { detail: 'unavailable' }, { 'retry-after': '5' });
      else json(res, 201, contact);
    };
    await expect(client().contacts.create({ email: 'ada@example.com', firstName: 'Ada' })).resolves.toEqual(contact);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.map((s) => JSON.parse(s.body))).toEqual(Array(3).fill({ email: 'ada@example.com', firstName: 'Ada' }));
  });

  it('retries a keyed POST whose retry meets the first attempt still running (409), but not a replayed 409', async () => {
    handler = (_seen, res, i) => {
      if (i === 0) res.socket?.destroy();
      else if (i === 1) json(res, 409, { detail: 'A request with this Idempotency-Key is still running.' });
      else json(res, 409, { detail: 'Changed during the merge.' }, { 'idempotent-replayed': 'true' });
    };
    await expect(client().contacts.merge('cnt_1', { mergeIds: ['cnt_2'] })).rejects.toMatchObject({
      status: 409,
      detail: 'Changed during the merge.',
    });
    expect(seen).toHaveLength(3);
  });

  it('does not repeat a PATCH without If-Match after a 503, and repeats one with If-Match', async () => {
    handler = (_seen, res, i) => (i === 0 ? json(res, 503, { detail: 'unavailable' }) : json(res, 200, contact));
    await expect(client().contacts.update('cnt_1', { title: 'Countess' })).rejects.toMatchObject({ status: 503, detail: 'unavailable' });
    expect(seen).toHaveLength(1);
    seen = [];
    await expect(client().contacts.update('cnt_1', { title: 'Countess' }, { ifMatch: '"3"' })).resolves.toEqual(contact);
    expect(seen.map((s) => s.headers['if-match'])).toEqual(['"3"', '"3"']);
  });

  it('gives up after the bounded attempts with backoff, and throws the last answer', async () => {
    handler = (_seen, res) => json(res, 503, { detail: 'unavailable' });
    const waits: number[] = [];
    const failure = await client(waits, { retry: { attempts: 3, baseDelayMs: 100 } })
      .contacts.get('cnt_1')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CrmApiError);
    expect(seen).toHaveLength(3);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThan(100);
    expect(waits[1]).toBeLessThan(200);
  });

  it('does not wait a Retry-After longer than maxDelayMs', async () => {
    handler = (_seen, res) => json(res, 429, { detail: 'slow down' }, { 'retry-after': '120' });
    const waits: number[] = [];
    await expect(client(waits, { retry: { maxDelayMs: 30_000 } }).contacts.get('cnt_1')).rejects.toMatchObject({ status: 429 });
    expect({ attempts: seen.length, waits }).toEqual({ attempts: 1, waits: [] });
  });

  it('does not send an Idempotency-Key with login, nor retry it after a 503', async () => {
    handler = (_seen, res) => json(res, 503, { detail: 'unavailable' });
    await expect(CrmClient.login({ baseUrl, email: 'a@example.com', password: 'secret-secret' })).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  });
});

describe('CrmClient sessions', () => {
  /** A refresh endpoint that honours rotation: each refresh token works once. */
  function rotatingGateway(): { refreshes: () => number } {
    const live = new Set(['refresh-0']);
    let issued = 0;
    handler = (request, res) => {
      if (request.url === '/api/auth/token/refresh/') {
        const { refresh } = JSON.parse(request.body) as { refresh: string };
        if (!live.delete(refresh)) return json(res, 401, { detail: 'Token reused.' });
        issued += 1;
        live.add(`refresh-${issued}`);
        return json(res, 200, { access: `access-${issued}`, refresh: `refresh-${issued}` });
      }
      if (request.headers.authorization !== `Bearer access-${issued}`) return json(res, 401, { detail: 'Token expired.' });
      return json(res, 200, contact);
    };
    return { refreshes: () => issued };
  }

  it('refreshes an expired access token once for concurrent calls, retries them, and reports the new pair', async () => {
    const gateway = rotatingGateway();
    const reported: unknown[] = [];
    const crm = client([], {
      credentials: { tokens: { access: 'expired', refresh: 'refresh-0' } },
      onTokens: (tokens) => void reported.push(tokens),
    });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => crm.contacts.get('cnt_1')));
    expect(answers).toEqual(Array(5).fill(contact));
    expect(gateway.refreshes()).toBe(1);
    expect(reported).toEqual([{ access: 'access-1', refresh: 'refresh-1' }]);
    expect(crm.auth.tokens).toEqual({ access: 'access-1', refresh: 'refresh-1' });
  });

  it('holds a call made while a refresh runs until the new token is there', async () => {
    const gateway = rotatingGateway();
    const rotating = handler;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let refreshSeen!: () => void;
    const refreshArrived = new Promise<void>((resolve) => (refreshSeen = resolve));
    handler = (request, res, i) => {
      if (request.url !== '/api/auth/token/refresh/') return rotating(request, res, i);
      refreshSeen();
      void released.then(() => rotating(request, res, i));
    };
    const crm = client([], { credentials: { tokens: { access: 'expired', refresh: 'refresh-0' } } });
    const first = crm.contacts.get('cnt_1');
    await refreshArrived;
    const second = crm.contacts.get('cnt_1');
    await new Promise((r) => setTimeout(r, 50));
    release();
    await expect(Promise.all([first, second])).resolves.toEqual([contact, contact]);
    expect(gateway.refreshes()).toBe(1);
    expect(seen.filter((s) => s.url === '/api/contacts/cnt_1/').map((s) => s.headers.authorization)).toEqual([
      'Bearer expired',
      'Bearer access-1',
      'Bearer access-1',
    ]);
  });

  it('throws the 401 when the refresh token is refused, and does not try it again', async () => {
    rotatingGateway();
    const crm = client([], { credentials: { tokens: { access: 'expired', refresh: 'stolen' } } });
    await expect(crm.contacts.get('cnt_1')).rejects.toMatchObject({ status: 401, detail: 'Token reused.' });
    await expect(crm.contacts.get('cnt_1')).rejects.toMatchObject({ status: 401, detail: 'Token expired.' });
    expect(seen.filter((s) => s.url === '/api/auth/token/refresh/')).toHaveLength(1);
  });

  it('never refreshes for an API key', async () => {
    handler = (_seen, res) => json(res, 401, { detail: 'Revoked.' });
    await expect(client().contacts.get('cnt_1')).rejects.toMatchObject({ status: 401 });
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer crm_key']);
  });
});

describe('CrmClient answers', () => {
  it('throws a 422 with field messages as CrmValidationError', async () => {
    handler = (_seen, res) => json(res, 422, { email: ['Enter a valid email address.'], nonFieldErrors: ['No name.'] });
    const failure = await client()
      .contacts.create({ email: 'nope' })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CrmValidationError);
    expect((failure as CrmValidationError).fields).toEqual({ email: ['Enter a valid email address.'], nonFieldErrors: ['No name.'] });
  });

  it('throws a 422 with a detail (a reused Idempotency-Key) as a plain CrmApiError', async () => {
    handler = (_seen, res) => json(res, 422, { detail: 'Idempotency-Key reused.' });
    const failure = await client()
      .contacts.create({ email: 'ada@example.com' })
      .catch((e: unknown) => e);
    expect(failure).not.toBeInstanceOf(CrmValidationError);
    expect(failure).toMatchObject({ status: 422, detail: 'Idempotency-Key reused.' });
  });

  it('walks a list by nextCursor, sending the filters again with each cursor', async () => {
    handler = (request, res) => {
      const cursor = new URL(request.url, baseUrl).searchParams.get('cursor');
      const pages: Record<string, unknown> = {
        first: { count: 3, next: null, previous: null, results: [{ id: 'a' }, { id: 'b' }], nextCursor: 'c1' },
        c1: { next: null, previous: null, results: [{ id: 'c' }], nextCursor: null },
      };
      json(res, 200, pages[cursor ?? 'first']);
    };
    const ids: string[] = [];
    for await (const item of client().contacts.list({ stage: 'customer', limit: 2 })) ids.push(item.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(seen.map((s) => new URL(s.url, baseUrl).search)).toEqual(['?stage=customer&limit=2', '?stage=customer&limit=2&cursor=c1']);
  });
});
