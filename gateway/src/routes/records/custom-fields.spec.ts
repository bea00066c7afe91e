import type { AddressInfo } from 'node:net';
import { withCustomFields } from '../../openapi/custom-fields-document';
import express, { Router } from 'express';
import { gatewayConfig } from '../../config';
import { customFieldEquals, readListQuery } from './list-query';
import { customFieldJson, customFieldRoutes, customFieldShape } from './custom-fields.routes';
import { contactKind } from './contacts.routes';
import { renderRecord } from './record-shape';
import { translateWrite, writeSchema } from './write-body';

describe('customFields on record writes', () => {
  it('carries an object as JSON text, in the mask', () => {
    const write = translateWrite({ firstName: 'Ada', customFields: { plan: 'gold', seats: 3 } }, contactKind.write);
    expect(write.message.customFields).toBe('{"plan":"gold","seats":3}');
    expect(write.mask.paths).toEqual(['first_name', 'custom_fields']);
    expect(write.invalid).toEqual([]);
  });

  it('puts null in the mask and leaves the message unset', () => {
    const write = translateWrite({ customFields: null }, contactKind.write);
    expect(write.message).toEqual({});
    expect(write.mask.paths).toEqual(['custom_fields']);
  });

  it.each([['text'], [['a']], [3], [true]])('reports %p as not an object', (value) => {
    const write = translateWrite({ customFields: value }, contactKind.write);
    expect(write.message).toEqual({});
    expect(write.mask.paths).toEqual([]);
    expect(write.invalid).toEqual([{ field: 'customFields', messages: ['Expected an object.'] }]);
  });

  it('documents it as an open object in create and update bodies', () => {
    for (const mode of ['create', 'update'] as const) {
      const properties = writeSchema(contactKind.write, mode).properties as Record<string, Record<string, unknown>>;
      expect(properties.customFields).toMatchObject({ type: ['object', 'null'], additionalProperties: true });
    }
  });
});

describe('customFields in answers', () => {
  it('parses the JSON text into an object in full records and list items', () => {
    const message = { id: 'cnt_1', customFields: '{"plan":"gold","seats":null}' };
    expect(renderRecord(contactKind.answer, message)?.customFields).toEqual({ plan: 'gold', seats: null });
    expect(renderRecord(contactKind.answer, message, 'listed')?.customFields).toEqual({ plan: 'gold', seats: null });
  });

  it('answers {} when the message has none', () => {
    expect(renderRecord(contactKind.answer, { id: 'cnt_1' })?.customFields).toEqual({});
    expect(renderRecord(contactKind.answer, { id: 'cnt_1', customFields: '' }, 'listed')?.customFields).toEqual({});
  });
});

describe('the customFields.<key> list filters', () => {
  const request = (query: Record<string, string>) => ({ query, get: () => 'crm.test', originalUrl: '/api/contacts' }) as never;

  it('collects them by prefix and sends them as JSON text without the prefix', () => {
    const list = readListQuery(request({ stage: 'new', 'customFields.plan': 'gold', 'customFields.seats': '3', other: 'x' }), ['stage'], {
      prefixes: ['customFields.'],
    });
    expect(list.filters).toEqual({ stage: 'new' });
    expect(list.prefixed).toEqual({ 'customFields.plan': 'gold', 'customFields.seats': '3' });
    expect(JSON.parse(customFieldEquals(list.prefixed))).toEqual({ plan: 'gold', seats: '3' });
  });

  it('sends an empty string when there are none', () => {
    expect(customFieldEquals({})).toBe('');
  });

  it('refuses them repeated, as every parameter', () => {
    expect(() => readListQuery(request({ 'customFields.plan': ['a', 'b'] as never }), [], { prefixes: ['customFields.'] })).toThrow(
      'must be given once',
    );
  });
});

describe('the custom field definitions', () => {
  const definition = {
    id: 'fld_1',
    kind: 'contact',
    key: 'plan',
    label: 'Plan',
    type: 'select',
    options: ['gold', 'silver'],
    required: true,
    unique: false,
    description: 'The plan bought.',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-02T00:00:00Z',
  };

  it('answer unset optional fields as empty', () => {
    expect(customFieldJson({ id: 'fld_1', options: [], createdAt: '', updatedAt: '' })).toEqual({
      id: 'fld_1',
      kind: '',
      key: '',
      label: '',
      type: '',
      options: [],
      required: false,
      unique: false,
      description: '',
      createdAt: '',
      updatedAt: '',
    });
  });

  it('translate a body like a record write: typed message, mask, invalid fields', () => {
    const write = translateWrite(
      { kind: 'contact', key: 'plan', options: 'gold', required: null, colour: 'red', id: 'fld_x' },
      customFieldShape,
    );
    expect(write.message).toEqual({ kind: 'contact', key: 'plan' });
    expect(write.mask.paths).toEqual(['kind', 'key', 'required']);
    expect(write.invalid).toEqual([
      { field: 'options', messages: ['Expected a list of items.'] },
      { field: 'colour', messages: ['Unknown field.'] },
    ]);
  });

  describe('routes', () => {
    const calls: Array<{ method: string; request: Record<string, unknown> }> = [];
    let base = '';
    let close: () => void = () => undefined;

    beforeAll(async () => {
      const router = Router();
      customFieldRoutes(
        router,
        async (method, request) => {
          calls.push({ method, request: request as Record<string, unknown> });
          if (method === 'ListCustomFields') return { total: 3, fields: [definition] };
          if (method === 'DeleteCustomField') return {};
          return { field: definition };
        },
        gatewayConfig(),
      );
      const app = express();
      app.use(express.json());
      app.use(router);
      const server = app.listen(0);
      await new Promise((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = () => server.close();
    });
    afterAll(() => close());
    beforeEach(() => calls.splice(0));

    it('list a page by kind with offset and limit', async () => {
      const response = await fetch(`${base}/api/settings/custom-fields?kind=contact&offset=1&limit=1`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(calls).toEqual([{ method: 'ListCustomFields', request: { kind: 'contact', offset: 1, limit: 1 } }]);
      expect(body).toMatchObject({ count: 3, results: [definition] });
      expect(body.next).toContain('/api/settings/custom-fields?kind=contact&limit=1&offset=2');
      expect(body.previous).toContain('offset=0');
    });

    it('create with the mask of the fields sent and answer 201', async () => {
      const response = await fetch(`${base}/api/settings/custom-fields`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'contact', key: 'plan', label: 'Plan', type: 'select', options: ['gold', 'silver'], required: true }),
      });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual(definition);
      expect(calls[0]).toEqual({
        method: 'CreateCustomField',
        request: {
          field: { kind: 'contact', key: 'plan', label: 'Plan', type: 'select', options: ['gold', 'silver'], required: true },
          fieldMask: { paths: ['kind', 'key', 'label', 'type', 'options', 'required'] },
          invalidFields: [],
        },
      });
    });

    it('read, change and delete one by id', async () => {
      expect((await fetch(`${base}/api/settings/custom-fields/fld_1`)).status).toBe(200);
      const patched = await fetch(`${base}/api/settings/custom-fields/fld_1`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'Plan bought', description: null }),
      });
      expect(patched.status).toBe(200);
      expect((await fetch(`${base}/api/settings/custom-fields/fld_1`, { method: 'DELETE' })).status).toBe(204);
      expect(calls).toEqual([
        { method: 'GetCustomField', request: { id: 'fld_1' } },
        {
          method: 'UpdateCustomField',
          request: { id: 'fld_1', field: { label: 'Plan bought' }, updateMask: { paths: ['label', 'description'] }, invalidFields: [] },
        },
        { method: 'DeleteCustomField', request: { id: 'fld_1' } },
      ]);
    });
  });
});

describe('the document as a workspace sees it', () => {
  const contactsOf = (document: Record<string, any>) => document.paths['/api/contacts/'];
  const document = {
    paths: {
      '/api/contacts/': {
        get: {
          responses: {
            200: {
              content: {
                'application/json': {
                  schema: {
                    properties: { results: { items: { properties: { customFields: { type: 'object', additionalProperties: true } } } } },
                  },
                },
              },
            },
          },
        },
        post: { requestBody: { properties: { customFields: { type: ['object', 'null'], additionalProperties: true } } } },
      },
      '/api/leads/{id}/': { get: { properties: { customFields: { type: 'object', additionalProperties: true } } } },
      '/api/settings/users/': { get: { properties: { customFields: { type: 'object', additionalProperties: true } } } },
    },
  };
  const definitions: Parameters<typeof withCustomFields>[1] = [
    { kind: 'contact', key: 'plan', label: 'Plan', type: 'select' as const, options: ['gold'], description: '' },
    { kind: 'contact', key: 'seats', label: 'Seats', type: 'integer' as const, options: [], description: 'Bought.' },
    { kind: 'lead', key: 'score', label: 'Score', type: 'number' as const, options: [], description: '' },
  ];

  it("types each kind's customFields with its definitions, every key in answers and any subset in writes", () => {
    const typed = withCustomFields(document, definitions) as Record<string, any>;
    const answer = contactsOf(typed).get.responses[200].content['application/json'].schema.properties.results.items.properties.customFields;
    expect(answer).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['plan', 'seats'],
      properties: {
        plan: { type: ['string', 'null'], enum: ['gold', null], title: 'Plan' },
        seats: { type: ['integer', 'null'], title: 'Seats', description: 'Bought.' },
      },
    });
    const write = contactsOf(typed).post.requestBody.properties.customFields;
    expect(write).toMatchObject({ type: ['object', 'null'], additionalProperties: false });
    expect(write.required).toBeUndefined();
    expect(Object.keys(typed.paths['/api/leads/{id}/'].get.properties.customFields.properties)).toEqual(['score']);
    expect(typed.paths['/api/settings/users/']).toBe(document.paths['/api/settings/users/']);
  });

  it('leaves the public document as it is', () => {
    withCustomFields(document, definitions);
    expect(contactsOf(document).post.requestBody.properties.customFields).toEqual({ type: ['object', 'null'], additionalProperties: true });
  });

  it('states an empty object for a kind without fields', () => {
    const typed = withCustomFields(document, []) as Record<string, any>;
    expect(contactsOf(typed).post.requestBody.properties.customFields).toEqual({
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {},
    });
  });
});
