import { Readable } from 'node:stream';
import { splitCsv, type CsvChunk } from '../adapters/csv/chunk-splitter';
import type { FieldMappings } from '../domain/column-plan';
import { CustomFieldCatalog } from '../domain/custom-fields';
import { chunkPayload, chunkRows } from './chunk-payload';
import type { ChunkPayloadWithFields } from './import-messages';

const JOB = '00000000-0000-4000-8000-000000000001';
const WS = 'ws_test';

async function chunksOf(csv: string, mappings: FieldMappings = {}, chunkRows = 3): Promise<CsvChunk[]> {
  const chunks: CsvChunk[] = [];
  await splitCsv(Readable.from([csv]), { chunkRows, mappings, onChunk: (chunk) => void chunks.push(chunk) });
  return chunks;
}

/** Every kind of row: valid, mapped and ignored columns, tags, blanks, an invalid row, in-file duplicates across chunks, a row too wide. */
const MIXED = [
  'E-mail,First Name,Surname,Company,Labels,Notes',
  'a@x.io,Ann,Lee,Acme,"vip; partner",',
  'b@x.io,,,Acme,,no name',
  'A@X.io,Again,Lee,Acme,,',
  'c@x.io,Cy,"Doe, Jr",,,"line one',
  'line two"',
  'a@x.io,Third,,,,',
  'd@x.io,Di,,,,,,extra',
  'e@x.io,  Ed  ,,,b;a;b,',
].join('\n');

describe('chunk payloads', () => {
  it('give the worker back the rows the splitter cut: fields, duplicates and unreadable rows', async () => {
    const chunks = await chunksOf(MIXED, { Labels: 'tags', Company: null });
    expect(chunks).toHaveLength(3);
    for (const chunk of chunks) {
      const sent = JSON.parse(JSON.stringify(chunkPayload(JOB, WS, chunk)));
      expect(chunkRows(sent)).toEqual(chunk.rows);
    }
  });

  it('carry custom field columns in the plan, so the worker gives each row its custom cells again', async () => {
    const chunks: CsvChunk[] = [];
    await splitCsv(Readable.from(['Email,Last Name,Shoe size,Region\na@x.io,Lee,42,North\nb@x.io,Bo,,\n']), {
      chunkRows: 5,
      mappings: { Region: 'customFields.region' },
      customFields: new CustomFieldCatalog([
        { key: 'shoeSize', label: 'Shoe size' },
        { key: 'region', label: 'Sales region' },
      ]),
      onChunk: (chunk) => void chunks.push(chunk),
    });
    const sent = JSON.parse(JSON.stringify(chunkPayload(JOB, WS, chunks[0]!)));
    expect(sent.columns).toEqual({ 0: 'email', 1: 'lastName', 2: 'customFields.shoeSize', 3: 'customFields.region' });
    const rows = chunkRows(sent);
    expect(rows).toEqual(chunks[0]!.rows);
    expect(rows.map((row) => ('fields' in row ? row.fields.customFields : undefined))).toEqual([
      { shoeSize: '42', region: 'North' },
      undefined,
    ]);
  });

  it('carry each row as its cells only, with the column plan once per chunk', async () => {
    const [chunk] = await chunksOf('Email,First Name,Phone\na@x.io,Ann,\nbad,Bo,123\na@x.io,Again,\n');
    expect(chunkPayload(JOB, WS, chunk!)).toEqual({
      jobUid: JOB,
      workspaceId: WS,
      index: 0,
      firstRow: 1,
      columns: { 0: 'email', 1: 'firstName', 2: 'phone' },
      cells: [
        ['a@x.io', 'Ann', ''],
        ['bad', 'Bo', '123'],
        ['a@x.io', 'Again', ''],
      ],
      duplicateOf: { 3: 1 },
      problems: {},
    });
  });

  it('are well under half the JSON of chunks whose rows carry their fields', async () => {
    const lines = ['Email,First Name,Last Name,Phone,Job Title,Tags'];
    for (let i = 1; i <= 500; i++) lines.push(`p${i}@example.com,First${i},"Last, ${i}",+1-555-${i},Engineer,"alpha;beta"`);
    const [chunk] = await chunksOf(lines.join('\n'), {}, 500);
    const withFields: ChunkPayloadWithFields = { jobUid: JOB, workspaceId: WS, index: 0, firstRow: 1, rows: chunk!.rows };
    expect(JSON.stringify(chunkPayload(JOB, WS, chunk!)).length).toBeLessThan(JSON.stringify(withFields).length * 0.4);
  });

  it('still read a chunk queued by an earlier version, whose rows carry their fields, as it was sent', async () => {
    const queued: ChunkPayloadWithFields = {
      jobUid: JOB,
      workspaceId: WS,
      index: 4,
      firstRow: 9,
      rows: [
        { row: 9, cells: ['a@x.io', 'Ann'], fields: { email: 'a@x.io', firstName: 'Ann' } },
        { row: 10, cells: ['A@x.io', 'Again'], fields: { email: 'A@x.io', firstName: 'Again' }, duplicateOf: 2 },
        { row: 11, cells: ['b@x.io', 'Bo', 'x'], problem: 'The row has 3 values but the header has 2 columns.' },
      ],
    };
    expect(chunkRows(JSON.parse(JSON.stringify(queued)))).toEqual(queued.rows);
  });
});
