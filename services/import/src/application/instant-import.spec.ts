/**
 * The synchronous import with a fake records service (duplicates by email, sources by uid) and
 * the real readers; text recognition and PDFs, which need their worker threads, are covered by
 * tests/import/sync-import.test.ts.
 */
import { DomainError } from '@crm/observability';
import { contactFileReaders, inProcessReader } from './contact-file-readers';
import { importContactsNow, type InstantImportRequest } from './instant-import';
import type { RecordsClient } from './ports';

const caller = { workspaceId: 'ws_1', actorId: 'usr_1', actorKind: 'user' as const, requestId: 'req_1' };

class FakeRecords implements RecordsClient {
  readonly contacts = new Map<string, string>();
  readonly methods: string[] = [];
  readonly dryRuns: boolean[] = [];
  readonly sentRows: any[] = [];
  customFields: { key: string; label: string }[] = [];
  async call(method: string, request: any): Promise<any> {
    this.methods.push(method);
    if (method === 'ListCustomFields') {
      expect(request).toMatchObject({ kind: 'contact', offset: 0, limit: 100 });
      return { total: this.customFields.length, fields: this.customFields };
    }
    if (method === 'GetSource') {
      if (request.uid !== 'src_1') throw DomainError.notFound();
      return { source: { uid: 'src_1', name: 'Fair' } };
    }
    if (method !== 'BatchCreateContacts') throw new Error(method);
    this.dryRuns.push(request.dryRun);
    if (request.sourceUid && request.sourceUid !== 'src_1') throw DomainError.notFound();
    const answer = { created: [] as any[], duplicates: [] as any[], errors: [] as any[], replayed: false };
    for (const row of request.rows) {
      this.sentRows.push(row);
      if (row.customFields && JSON.parse(row.customFields).shoeSize === 'abc') {
        answer.errors.push({ row: row.row, message: 'customFields.shoeSize: Enter a whole number.' });
        continue;
      }
      const existing = this.contacts.get(row.email.toLowerCase());
      if (existing) answer.duplicates.push({ row: row.row, email: row.email, existingContactId: existing, sameImport: false });
      else if (request.dryRun) answer.created.push({ row: row.row, contactId: '' });
      else {
        const id = `cnt_${this.contacts.size + 1}`;
        this.contacts.set(row.email.toLowerCase(), id);
        answer.created.push({ row: row.row, contactId: id });
      }
    }
    return answer;
  }
}

let records: FakeRecords;
beforeEach(() => {
  records = new FakeRecords();
  records.contacts.set('old@example.com', 'cnt_old');
});

const run = (request: Omit<Partial<InstantImportRequest>, 'content'> & { filename: string; content: string | Buffer }) =>
  importContactsNow({ records, readers: contactFileReaders(inProcessReader()) }, caller, {
    sourceUid: null,
    fieldMappings: undefined,
    dryRun: false,
    ...request,
    content: Buffer.from(request.content),
  });

const CSV = [
  'Email,First Name,Last Name',
  'ann@example.com,Ann,Lee',
  ',No,Email',
  'ANN@example.com,Ann,Again',
  'old@example.com,Old,Timer',
].join('\n');

describe('the synchronous import', () => {
  it('creates what it can and lists errors and duplicates beside it, in row order', async () => {
    expect(await run({ filename: 'people.csv', content: CSV })).toEqual({
      created: [expect.objectContaining({ row: 1, contactId: 'cnt_2', email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee' })],
      errors: [{ row: 2, message: 'Email is missing.' }],
      duplicates: [
        { row: 3, email: 'ANN@example.com', existingContactId: '' },
        { row: 4, email: 'old@example.com', existingContactId: 'cnt_old' },
      ],
    });
  });

  it('creates nothing on a dry run, and answers the same rows: records checks the batch without writing it', async () => {
    const answer = await run({ filename: 'people.csv', content: CSV, dryRun: true });
    expect(records.dryRuns).toEqual([true]);
    expect(records.contacts.size).toBe(1);
    expect(answer.created).toEqual([expect.objectContaining({ row: 1, contactId: '', email: 'ann@example.com' })]);
    expect(answer.duplicates).toEqual([
      { row: 3, email: 'ANN@example.com', existingContactId: '' },
      { row: 4, email: 'old@example.com', existingContactId: 'cnt_old' },
    ]);
  });

  it('reads CSV headers through field_mappings, as the asynchronous import does', async () => {
    const answer = await run({
      filename: 'x.csv',
      content: 'Courriel 2,Nom complet\nzoe@example.com,Zoe\n',
      fieldMappings: '{"Courriel 2": "email", "Nom complet": "firstName"}',
    });
    expect(answer.created).toEqual([expect.objectContaining({ email: 'zoe@example.com', firstName: 'Zoe' })]);
  });

  it('fills custom fields from headers naming their key or label and from field_mappings, reading them once', async () => {
    records.customFields = [
      { key: 'shoeSize', label: 'Shoe size' },
      { key: 'favouriteColour', label: 'Favourite colour' },
      { key: 'region', label: 'Sales region' },
    ];
    const answer = await run({
      filename: 'x.csv',
      content: 'Email,Last Name,SHOESIZE,favourite colour,Territory\nzoe@example.com,Zoe,42,blue,North\nbob@example.com,Bob,abc,,\n',
      fieldMappings: '{"Territory": "customFields.region"}',
    });
    expect(records.methods.filter((method) => method === 'ListCustomFields')).toHaveLength(1);
    expect(records.sentRows.map((row) => row.customFields)).toEqual([
      JSON.stringify({ shoeSize: '42', favouriteColour: 'blue', region: 'North' }),
      JSON.stringify({ shoeSize: 'abc' }),
    ]);
    expect(answer.created).toEqual([expect.objectContaining({ row: 1, email: 'zoe@example.com' })]);
    expect(answer.errors).toEqual([{ row: 2, message: 'customFields.shoeSize: Enter a whole number.' }]);
  });

  it('refuses a field_mappings target naming an unknown custom field with a 400, before creating anything', async () => {
    records.customFields = [{ key: 'shoeSize', label: 'Shoe size' }];
    await expect(run({ filename: 'x.csv', content: CSV, fieldMappings: '{"First Name": "customFields.hatSize"}' })).rejects.toMatchObject({
      kind: 'invalid_argument',
      message: expect.stringMatching(/"customFields\.hatSize" is not a contact field/),
    });
    expect(records.methods).toEqual(['ListCustomFields']);
  });

  it('refuses a CSV of more than 500 rows with a 413 that names the asynchronous import, before creating anything', async () => {
    const lines = ['Email,First Name', ...Array.from({ length: 501 }, (_, i) => `p${i}@example.com,P${i}`)];
    await expect(run({ filename: 'big.csv', content: lines.join('\n') })).rejects.toMatchObject({
      kind: 'payload_too_large',
      message: expect.stringContaining('POST /api/crm/contacts/import/start/'),
    });
    expect(records.methods).toEqual(['ListCustomFields']);
  });

  it('takes 500 rows', async () => {
    const lines = ['Email,First Name', ...Array.from({ length: 500 }, (_, i) => `p${i}@example.com,P${i}`)];
    expect((await run({ filename: 'full.csv', content: lines.join('\n') })).created).toHaveLength(500);
  });

  it('answers 422 for a CSV without an email column, and 400 for bad field_mappings or an unknown source', async () => {
    await expect(run({ filename: 'x.csv', content: 'Name\nAda\n' })).rejects.toMatchObject({ kind: 'validation_failed' });
    await expect(run({ filename: 'x.csv', content: CSV, fieldMappings: '{bad' })).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(run({ filename: 'x.csv', content: CSV, sourceUid: 'src_nope' })).rejects.toMatchObject({
      kind: 'invalid_argument',
      message: expect.stringContaining('Unknown source_uid'),
    });
    await expect(run({ filename: 'x.csv', content: CSV, sourceUid: 'src_nope', dryRun: true })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    expect(records.contacts.size).toBe(1);
  });

  it('numbers vCards from 1 and marks a later card with an earlier email as a duplicate', async () => {
    const card = (name: string, email: string) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${name}\r\nEMAIL:${email}\r\nEND:VCARD\r\n`;
    const answer = await run({
      filename: 'x.vcf',
      content: card('Ada Lovelace', 'ada@example.com') + card('Ada Again', 'ADA@example.com') + card('No Mail', ''),
    });
    expect(answer.created.map((c) => c.row)).toEqual([1]);
    expect(answer.duplicates).toEqual([{ row: 2, email: 'ADA@example.com', existingContactId: '' }]);
    expect(answer.errors).toEqual([{ row: 3, message: 'Email is missing.' }]);
  });

  it('refuses more than 500 contacts from a vCard file with a 413', async () => {
    const cards = Array.from(
      { length: 501 },
      (_, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:P ${i}\r\nEMAIL:p${i}@example.com\r\nEND:VCARD\r\n`,
    );
    await expect(run({ filename: 'many.vcf', content: cards.join('') })).rejects.toMatchObject({ kind: 'payload_too_large' });
    expect(records.methods).toEqual([]);
  });

  it('keeps the contacts of one PDF apart although all are on row 1', async () => {
    const readers = {
      ...contactFileReaders(inProcessReader()),
      pdf: async () => [
        { row: 1, fields: { firstName: 'Grace', email: 'grace@example.com' } },
        { row: 1, fields: { firstName: 'Old', email: 'old@example.com' } },
        { row: 1, fields: { firstName: 'Alan', email: 'alan@example.com' } },
      ],
    };
    const answer = await importContactsNow({ records, readers }, caller, {
      filename: 'list.pdf',
      content: Buffer.from('%PDF'),
      sourceUid: null,
      fieldMappings: undefined,
      dryRun: false,
    });
    expect(answer.created.map((c) => [c.row, c.firstName, c.contactId])).toEqual([
      [1, 'Grace', 'cnt_2'],
      [1, 'Alan', 'cnt_3'],
    ]);
    expect(answer.duplicates).toEqual([{ row: 1, email: 'old@example.com', existingContactId: 'cnt_old' }]);
  });

  it('refuses another type, a file over 5 MB, and an unreadable vCard', async () => {
    await expect(run({ filename: 'x.txt', content: 'hi' })).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(run({ filename: 'x.csv', content: Buffer.alloc(5 * 1024 * 1024 + 1, 0x41) })).rejects.toMatchObject({
      kind: 'payload_too_large',
    });
    await expect(run({ filename: 'x.vcf', content: 'no cards here' })).rejects.toMatchObject({ kind: 'validation_failed' });
  });
});
