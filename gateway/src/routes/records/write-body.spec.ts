import { translateWrite, writeSchema, type WriteShape } from './write-body';

const shape: WriteShape = {
  fields: {
    name: { type: 'string', maxLength: 200 },
    notes: { type: 'string', maxLength: 10_000 },
    email: { type: 'string', format: 'email' },
    stage: { type: 'string', choices: ['a', 'b'] },
    score: { type: 'integer', minimum: 0, maximum: 100 },
    owner: { type: 'string', nullable: true },
    tags: { type: 'strings', maxItems: 50, itemMaxLength: 50 },
  },
  readOnly: ['id'],
  required: ['name'],
};

describe('the request body schema of a write', () => {
  const properties = writeSchema(shape, 'create').properties as Record<string, Record<string, unknown>>;

  it('states limits as schema keywords', () => {
    expect(properties.name).toMatchObject({ maxLength: 200 });
    expect(properties.score).toMatchObject({ type: 'integer', minimum: 0, maximum: 100 });
    expect(properties.tags).toMatchObject({ maxItems: 50, items: { type: 'string', maxLength: 50 } });
  });

  it('marks null accepted where the records service reads it as empty or clears, and nowhere else', () => {
    expect(properties.notes.type).toEqual(['string', 'null']);
    expect(properties.tags.type).toEqual(['array', 'null']);
    expect(properties.owner.type).toEqual(['string', 'null']);
    expect(properties.name.type).toBe('string'); // required text refuses null
    expect(properties.email.type).toBe('string');
    expect(properties.stage.type).toBe('string');
    expect(properties.score.type).toBe('integer');
  });

  it('refuses blank required text and null for a field required on create, which update may clear', () => {
    const withAccount: WriteShape = {
      ...shape,
      fields: { ...shape.fields, accountId: { type: 'string', nullable: true } },
      required: ['name', 'accountId'],
    };
    const create = writeSchema(withAccount, 'create').properties as Record<string, Record<string, unknown>>;
    const update = writeSchema(withAccount, 'update').properties as Record<string, Record<string, unknown>>;
    expect(create.name).toMatchObject({ minLength: 1, pattern: '\\S' });
    expect(update.name).toMatchObject({ minLength: 1, pattern: '\\S' });
    expect(create.accountId.type).toBe('string');
    expect(update.accountId.type).toEqual(['string', 'null']);
  });

  it('states "at least one of" as anyOf on create', () => {
    const people: WriteShape = { ...shape, oneOfRequired: ['name', 'notes'] };
    expect(writeSchema(people, 'create').anyOf).toEqual([
      { required: ['name'], properties: { name: { type: 'string', pattern: '\\S' } } },
      { required: ['notes'], properties: { notes: { type: 'string', pattern: '\\S' } } },
    ]);
    expect(writeSchema(people, 'update')).not.toHaveProperty('anyOf');
  });

  it('lists required fields on create only', () => {
    expect(writeSchema(shape, 'create').required).toEqual(['name']);
    expect(writeSchema(shape, 'update')).not.toHaveProperty('required');
  });
});

const writable: WriteShape = {
  fields: {
    firstName: { type: 'string' },
    leadScore: { type: 'integer' },
    accountId: { type: 'string', nullable: true },
    tags: { type: 'strings' },
  },
  readOnly: ['id', 'createdAt'],
  required: [],
};

describe('a JSON write body as a records write request', () => {
  it('masks every field sent, and leaves a null one unset in the message', () => {
    const write = translateWrite({ firstName: 'Ada', accountId: null, tags: [] }, writable);
    expect(write.mask.paths).toEqual(['first_name', 'account_id', 'tags']);
    expect(write.message).toEqual({ firstName: 'Ada', tags: [] });
    expect(write.invalid).toEqual([]);
  });

  it('drops read-only fields and reports unknown and mistyped ones outside the mask', () => {
    const write = translateWrite({ id: 'cnt_1', createdAt: 'x', nickname: 'A', leadScore: '7' }, writable);
    expect(write.mask.paths).toEqual([]);
    expect(write.invalid).toEqual([
      { field: 'nickname', messages: ['Unknown field.'] },
      { field: 'leadScore', messages: ['A valid integer is required.'] },
    ]);
  });

  it('leaves a null option out altogether when null means absent', () => {
    const write = translateWrite({ firstName: null, leadScore: 3 }, writable, 'absent');
    expect(write.mask.paths).toEqual(['lead_score']);
    expect(write.message).toEqual({ leadScore: 3 });
  });
});
