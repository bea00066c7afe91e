import { Readable } from 'node:stream';
import { MAX_MESSAGE_BYTES } from '@crm/bus';
import { chunkPayload } from '../../application/chunk-payload';
import { MAX_COLUMNS, splitCsv, type CsvChunk } from './chunk-splitter';
import { decodeText, EncodingSniffer } from './text-encoding';

function bytes(text: string, encoding: 'utf8' | 'latin1' = 'utf8'): Buffer {
  return Buffer.from(text, encoding);
}

async function split(data: Buffer, chunkRows = 2, mappings = {}) {
  const sniffer = new EncodingSniffer();
  sniffer.push(data);
  const { encoding } = sniffer.finish();
  const chunks: CsvChunk[] = [];
  const summary = await splitCsv(Readable.from([data]).pipe(decodeText(encoding)), {
    chunkRows,
    mappings,
    onChunk: (c) => void chunks.push(c),
  });
  return { summary, chunks, encoding };
}

describe('encodings', () => {
  it('reads UTF-8 with a BOM without keeping the BOM in the first header', async () => {
    const { chunks, encoding } = await split(bytes('\uFEFFEmail,First Name\nzoe@example.com,Zoë\n'));
    expect(encoding).toBe('utf-8');
    expect(chunks[0]!.rows[0]).toEqual({
      row: 1,
      cells: ['zoe@example.com', 'Zoë'],
      fields: { email: 'zoe@example.com', firstName: 'Zoë' },
    });
  });

  it('falls back to windows-1252 when the bytes are not UTF-8', async () => {
    const { chunks, encoding } = await split(bytes('Email,First Name\nrene@example.com,René\n', 'latin1'));
    expect(encoding).toBe('windows-1252');
    expect(chunks[0]!.rows[0]).toMatchObject({ fields: { firstName: 'René' } });
  });

  it('sees UTF-8 split across network chunks as UTF-8', () => {
    const data = bytes('é');
    const sniffer = new EncodingSniffer();
    sniffer.push(data.subarray(0, 1));
    sniffer.push(data.subarray(1));
    expect(sniffer.finish()).toEqual({ encoding: 'utf-8', binary: false });
  });

  it('flags NUL bytes as binary', () => {
    const sniffer = new EncodingSniffer();
    sniffer.push(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff]));
    expect(sniffer.finish().binary).toBe(true);
  });
});

describe('splitting', () => {
  it('cuts rows into chunks numbered from data row 1', async () => {
    const { summary, chunks } = await split(bytes('email,first_name\na@x.io,A\nb@x.io,B\nc@x.io,C\n'));
    expect(summary).toEqual({ totalRows: 3, chunkCount: 2, ignoredColumns: [] });
    expect(chunks.map((c) => [c.index, c.firstRow, c.rows.length])).toEqual([
      [0, 1, 2],
      [1, 3, 1],
    ]);
  });

  it('reads quoted fields with commas and line breaks', async () => {
    const { chunks } = await split(bytes('Email,Notes,Last Name\r\na@x.io,"one, two\nthree","O""Brien"\r\n'));
    expect(chunks[0]!.rows[0]).toEqual({
      row: 1,
      cells: ['a@x.io', 'one, two\nthree', 'O"Brien'],
      fields: { email: 'a@x.io', notes: 'one, two\nthree', lastName: 'O"Brien' },
    });
  });

  it('marks a later row with an email already seen in the file as a duplicate of the earlier row', async () => {
    const { chunks } = await split(bytes('Email,First Name\na@x.io,A\nb@x.io,B\nA@X.io,Again\n'));
    expect(chunks[1]!.rows[0]).toMatchObject({ row: 3, duplicateOf: 1 });
  });

  it('does not let an invalid row claim an email', async () => {
    const { chunks } = await split(bytes('Email,First Name\na@x.io,\na@x.io,A\n'));
    expect(chunks[0]!.rows[1]).not.toHaveProperty('duplicateOf');
  });

  it('reports a row with more values than the header has columns', async () => {
    const { chunks } = await split(bytes('Email,First Name\na@x.io,A,extra\nb@x.io,B,\n'));
    expect(chunks[0]!.rows[0]).toEqual({
      row: 1,
      cells: ['a@x.io', 'A', 'extra'],
      problem: expect.stringMatching(/3 values but the header has 2 columns/),
    });
    expect(chunks[0]!.rows[1]).toMatchObject({ fields: { email: 'b@x.io' } });
  });

  it('gives a header-only file zero rows and zero chunks', async () => {
    const { summary, chunks } = await split(bytes('Email,First Name\n'));
    expect(summary.totalRows).toBe(0);
    expect(chunks).toEqual([]);
  });

  it('refuses a file with no header row', async () => {
    await expect(split(bytes('\n\n'))).rejects.toThrow('The file is empty: it has no header row.');
  });

  it('refuses a header without an email column', async () => {
    await expect(split(bytes('Name,Company\nA,B\n'))).rejects.toThrow(/no email column/);
  });

  it("passes on the caller's own failures as they are, not as a file that cannot be read", async () => {
    const down = new Error('connection closed');
    const text = () => Readable.from([bytes('Email,First Name\na@x.io,A\nb@x.io,B\nc@x.io,C\n')]).pipe(decodeText('utf-8'));
    await expect(splitCsv(text(), { chunkRows: 2, mappings: {}, onChunk: () => Promise.reject(down) })).rejects.toBe(down);
    await expect(
      splitCsv(text(), { chunkRows: 2, mappings: {}, onChunk: () => undefined, onHeader: () => Promise.reject(down) }),
    ).rejects.toBe(down);
    const fields = () => Promise.reject(down);
    await expect(splitCsv(text(), { chunkRows: 2, mappings: {}, onChunk: () => undefined, customFields: fields })).rejects.toBe(down);
  });
});

describe('giant lines', () => {
  it('refuses a line longer than the limit early', async () => {
    const data = Buffer.from(`Email,Notes\na@x.io,${'n'.repeat(5000)}\n`);
    const run = splitCsv(Readable.from([data.subarray(0, 3000), data.subarray(3000)]).pipe(decodeText('utf-8')), {
      chunkRows: 10,
      mappings: {},
      maxLineChars: 4000,
      onChunk: () => undefined,
    });
    await expect(run).rejects.toThrow(/line longer than 4,000 characters/);
  });

  it('accepts lines under the limit spread over several chunks', async () => {
    const data = Buffer.from(`Email,Notes\na@x.io,${'n'.repeat(3000)}\nb@x.io,x\n`);
    const chunks: CsvChunk[] = [];
    await splitCsv(Readable.from([data.subarray(0, 1000), data.subarray(1000, 2000), data.subarray(2000)]).pipe(decodeText('utf-8')), {
      chunkRows: 10,
      mappings: {},
      maxLineChars: 4000,
      onChunk: (c) => void chunks.push(c),
    });
    expect(chunks[0]!.rows).toHaveLength(2);
  });
});

// Issue "One upload can stall the import service", item 1: a few lines of a million commas made a
// ~30 MB chunk message, over RabbitMQ 4's 16 MiB, whose refused publish closed the connection.
describe('chunks sized for the bus', () => {
  const messageBytes = (chunk: CsvChunk) => Buffer.byteLength(JSON.stringify(chunkPayload('job', 'ws', chunk)));

  async function chunksOf(text: string): Promise<CsvChunk[]> {
    const chunks: CsvChunk[] = [];
    await splitCsv(Readable.from([Buffer.from(text)]).pipe(decodeText('utf-8')), {
      chunkRows: 500,
      mappings: {},
      onChunk: (c) => void chunks.push(c),
    });
    return chunks;
  }

  it(`keeps at most ${MAX_COLUMNS} cells of rows of a million empty cells, so their chunk stays small`, async () => {
    const lines = Array.from({ length: 8 }, (_, i) => `p${i}@x.io,Ann${','.repeat(999_000)}`);
    const chunks = await chunksOf(`Email,First Name\n${lines.join('\n')}\n`);
    expect(chunks.flatMap((c) => c.rows.map((r) => [r.row, r.cells.length]))).toEqual(lines.map((_, i) => [i + 1, MAX_COLUMNS]));
    expect(Math.max(...chunks.map(messageBytes))).toBeLessThan(MAX_MESSAGE_BYTES);
  });

  it(`makes a row with values past the header a row error carrying ${MAX_COLUMNS} of its cells`, async () => {
    const [chunk] = await chunksOf(`Email,First Name\np@x.io,Ann${',x'.repeat(400_000)}\n`);
    expect(chunk!.rows[0]).toMatchObject({ row: 1, problem: expect.stringContaining('400002 values') });
    expect(chunk!.rows[0]!.cells).toHaveLength(MAX_COLUMNS);
  });

  it('cuts chunks of long rows by size, every row kept in order, every message under the bus limit', async () => {
    const lines = Array.from({ length: 24 }, (_, i) => `p${i}@x.io,${'n'.repeat(900_000)}`);
    const chunks = await chunksOf(`Email,Notes\n${lines.join('\n')}\n`);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flatMap((c) => c.rows.map((r) => r.row))).toEqual(lines.map((_, i) => i + 1));
    for (const chunk of chunks) expect(messageBytes(chunk)).toBeLessThan(MAX_MESSAGE_BYTES);
  });

  it(`refuses a header of more than ${MAX_COLUMNS} columns`, async () => {
    await expect(chunksOf(`Email${',c'.repeat(MAX_COLUMNS)}\na@x.io\n`)).rejects.toThrow(/1,001 columns; at most 1,000/);
  });
});
