import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { jsonBody } from './json-body';

let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use(jsonBody('1kb'));
  app.all('/', (req, res) => {
    res.json({ body: req.body as unknown });
  });
  app.use((error: { message?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(400).json({ error: error.message });
  });
  server = await new Promise((resolve) => {
    const s = createServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => server.close());

const send = async (init: RequestInit) => {
  const response = await fetch(base, init);
  return { status: response.status, json: (await response.json()) as { body?: unknown; error?: string } };
};

describe('JSON bodies', () => {
  it('gives a request without a body an empty object', async () => {
    expect(await send({ method: 'GET' })).toEqual({ status: 200, json: { body: {} } });
    expect(await send({ method: 'DELETE' })).toEqual({ status: 200, json: { body: {} } });
  });

  it('parses a JSON object body', async () => {
    const answer = await send({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(answer).toEqual({ status: 200, json: { body: { a: 1 } } });
  });

  it('still checks every body that is sent: its type, its keys, an object at the top', async () => {
    const wrongType = await send({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(wrongType.status).toBe(400);
    const prototypeKey = await send({ method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"__proto__":{}}' });
    expect(prototypeKey).toEqual({ status: 400, json: { error: 'The request body may not contain the key "__proto__".' } });
    const notAnObject = await send({ method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '[1]' });
    expect(notAnObject).toEqual({ status: 400, json: { error: 'The request body must be a JSON object.' } });
  });
});
