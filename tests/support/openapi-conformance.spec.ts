import { createLogger } from '@crm/observability';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { createApp } from '../../gateway/src/app';
import { gatewayConfig } from '../../gateway/src/config';
import { MemoryCounter } from '../../gateway/src/testing/memory-counter';
import { describeViolations, OpenApiConformance, type RecordedAnswer } from './openapi-conformance';

const document = {
  openapi: '3.1.0',
  paths: {
    '/api/contacts/': {
      get: {
        parameters: [
          { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
          { name: 'stage', in: 'query', schema: { type: 'string', enum: ['new', 'won'] } },
        ],
        responses: {
          '200': { description: 'A page.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Page' } } } },
        },
      },
    },
    '/api/contacts/{id}/': {
      get: {
        parameters: [{ name: 'fields', in: 'query', schema: { type: 'string' } }],
        responses: {
          '200': { description: 'One.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Contact' } } } },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
      delete: { responses: { '204': { description: 'Gone.' } } },
    },
    '/api/contacts/{id}/notes/': {
      post: {
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', properties: { text: { type: 'string', maxLength: 5 } }, additionalProperties: false },
            },
          },
        },
        responses: { '201': { description: 'Noted.' }, '422': { description: 'Refused.' } },
      },
    },
    '/api/contacts/import/': {
      post: {
        responses: {
          '201': { description: 'Started.', content: { 'application/json': { schema: { type: 'object', required: ['uid'] } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Contact: {
        type: 'object',
        required: ['id', 'email'],
        properties: { id: { type: 'string' }, email: { type: ['string', 'null'], format: 'email' } },
      },
      Page: {
        type: 'object',
        required: ['results'],
        properties: { results: { type: 'array', items: { $ref: '#/components/schemas/Contact' } } },
      },
      Error: { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } }, additionalProperties: false },
    },
    responses: {
      NotFound: { description: 'No such thing.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  },
};

function answer(method: string, path: string, status: number, body?: unknown, headers: Record<string, string> = {}): RecordedAnswer {
  const text = body === undefined ? '' : JSON.stringify(body);
  return {
    method,
    path,
    status,
    body,
    text,
    headers: body === undefined ? headers : { 'content-type': 'application/json; charset=utf-8', ...headers },
  };
}

describe('the OpenAPI conformance checker', () => {
  it('accepts a documented status with a body that matches its schema, whatever the version prefix, slash or query', () => {
    const checker = new OpenApiConformance(document);
    expect(checker.check(answer('GET', '/api/v1/contacts/c1?fields=id', 200, { id: 'c1', email: null }))).toEqual([]);
    expect(checker.check(answer('GET', '/api/contacts?page=2', 200, { results: [{ id: 'c1', email: 'a@b.co' }] }))).toEqual([]);
    expect(checker.check(answer('DELETE', '/api/contacts/c1/', 204))).toEqual([]);
  });

  it('catches a status the operation does not document', () => {
    const checker = new OpenApiConformance(document);
    const [violation] = checker.check(answer('GET', '/api/contacts/c1/', 400, { detail: 'Bad.' }));
    expect(violation).toMatchObject({ method: 'GET', template: '/api/contacts/{id}/', status: 400 });
    expect(violation.problem).toMatch(/status 400 is not documented/);
  });

  it('catches a body that does not match the schema, naming the field', () => {
    const checker = new OpenApiConformance(document);
    const found = checker.check(answer('GET', '/api/contacts/', 200, { results: [{ id: 'c1', email: '' }] }));
    expect(found).toHaveLength(1);
    expect(found[0].problem).toMatch(/\/results\/0\/email must match format "email"/);
    expect(checker.check(answer('POST', '/api/contacts/import/', 201, { id: 'x' }))[0].problem).toMatch(
      /must have required property 'uid'/,
    );
  });

  it('checks error answers given by $ref against the shared error shape', () => {
    const checker = new OpenApiConformance(document);
    expect(checker.check(answer('GET', '/api/contacts/c9/', 404, { detail: 'Not found.' }))).toEqual([]);
    expect(checker.check(answer('GET', '/api/contacts/c9/', 404, { error: 'nope' }))[0].problem).toMatch(/required property 'detail'/);
  });

  it('prefers a literal path to a template', () => {
    const checker = new OpenApiConformance(document);
    expect(checker.check(answer('POST', '/api/contacts/import', 201, { uid: 'u1' }))).toEqual([]);
  });

  it('wants 404 in the error shape for an undocumented path, and 405 with Allow for an unserved method', () => {
    const checker = new OpenApiConformance(document);
    expect(checker.check(answer('GET', '/api/nothing/', 404, { detail: 'Not found.' }))).toEqual([]);
    expect(checker.check(answer('GET', '/api/nothing/', 200, { ok: true }))[0].problem).toMatch(/must answer 404/);
    expect(checker.check(answer('PUT', '/api/contacts/c1/', 404, { detail: 'Not found.' }))[0].problem).toMatch(/must answer 405/);
    expect(checker.check(answer('PUT', '/api/contacts/c1/', 405, { detail: 'Method not allowed.' }, { allow: 'GET, DELETE' }))).toEqual([]);
    expect(checker.check(answer('PUT', '/api/contacts/c1/', 405, { detail: 'No.' }, { allow: 'GET' }))[0].problem).toMatch(/lacks DELETE/);
  });

  it('catches a body where none is documented and an undocumented content type', () => {
    const checker = new OpenApiConformance(document);
    expect(checker.check(answer('DELETE', '/api/contacts/c1/', 204, { id: 'c1' }))[0].problem).toMatch(/says there is none/);
    const csv: RecordedAnswer = {
      method: 'GET',
      path: '/api/contacts/',
      status: 200,
      headers: { 'content-type': 'text/csv' },
      text: 'a,b',
      body: 'a,b',
    };
    expect(checker.check(csv)[0].problem).toMatch(/content type text\/csv is not documented/);
  });

  it('lists violations one a line with the start of the body', () => {
    const checker = new OpenApiConformance(document);
    checker.check(answer('GET', '/api/contacts/c1/', 418, { detail: 'x'.repeat(300) }));
    const text = describeViolations(checker.violations);
    expect(text).toContain('GET /api/contacts/{id}/ → 418: status 418 is not documented');
    expect(text).toContain(`body: {"detail":"${'x'.repeat(188)}`);
    expect(text).not.toContain('x'.repeat(200));
  });

  it('catches a request body the server accepted but the document refuses, and leaves refused ones alone', () => {
    const checker = new OpenApiConformance(document);
    const sent = (status: number, requestBody: unknown): RecordedAnswer => ({
      ...answer('POST', '/api/contacts/c1/notes/', status),
      requestBody,
    });
    expect(checker.check(sent(201, { text: 'hi' }))).toEqual([]);
    expect(checker.check(sent(201, { text: 'too long' }))[0].problem).toMatch(
      /accepted a request body the document refuses: \/text must NOT have more than 5 characters/,
    );
    expect(checker.check(sent(201, { text: null }))[0].problem).toMatch(/\/text must be string/);
    expect(checker.check(sent(422, { text: 'too long' }))).toEqual([]);
  });

  it('catches a query parameter the server accepted that the operation does not document, or whose value it refuses', () => {
    const checker = new OpenApiConformance(document);
    const page = { results: [] };
    expect(checker.check(answer('GET', '/api/contacts/?page=2&stage=won', 200, page))).toEqual([]);
    expect(checker.check(answer('GET', '/api/contacts/?limit=5', 200, page))[0].problem).toMatch(/query parameter "limit"/);
    expect(checker.check(answer('GET', '/api/contacts/?page=0', 200, page))[0].problem).toMatch(/page=0, which the document refuses/);
    expect(checker.check(answer('GET', '/api/contacts/?stage=lost', 200, page))[0].problem).toMatch(/stage=lost/);
    expect(checker.check(answer('GET', '/api/contacts/?page=0', 400, { detail: 'Bad.' }))).toEqual([
      expect.objectContaining({ problem: expect.stringMatching(/status 400 is not documented/) }),
    ]);
  });

  it("compiles every request and answer schema of the gateway's own document (strict formats)", () => {
    const logger = createLogger('conformance-test', { level: 'silent' });
    const gatewayDocument = createApp({
      config: gatewayConfig(),
      logger,
      auth: { call: () => Promise.reject(new Error('no auth service in this test')) },
      rateLimitCounter: new MemoryCounter(),
      invalidation: new LocalInvalidationChannel(logger),
    }).openApiDocument() as ConstructorParameters<typeof OpenApiConformance>[0];
    const checker = new OpenApiConformance(gatewayDocument);
    expect(checker.compileAll()).toBeGreaterThan(80);
  });
});
