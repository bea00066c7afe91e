jest.setTimeout(120_000);

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { createDeflate, deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { multipartBody, type FormPart } from '../support/multipart';
import { RecordsReader } from './import-support';

const PATH = '/api/contacts/import/';

let t: TestCluster;
let records: RecordsReader;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 1 });
  records = new RecordsReader(t.cluster);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  records?.close();
  await t?.stop();
});

function importFile(
  token: string,
  filename: string,
  content: string | Buffer,
  options: { dryRun?: boolean; fields?: Record<string, string>; headers?: Record<string, string>; timeoutMs?: number } = {},
) {
  const parts: FormPart[] = [
    { name: 'file', filename, contentType: 'application/octet-stream', content },
    ...Object.entries(options.fields ?? {}).map(([name, value]) => ({ name, content: value })),
  ];
  const { body, contentType } = multipartBody(parts);
  return t.api.call('POST', `${PATH}${options.dryRun ? '?dryRun=true' : ''}`, {
    rawBody: body,
    token,
    headers: { 'content-type': contentType, ...options.headers },
    timeoutMs: options.timeoutMs,
  });
}

async function emails(owner: SignedUp): Promise<string[]> {
  return (await records.contacts(owner)).map((c) => c.email).sort();
}

/**
 * A PNG of the lines, black on white in jimp's 64 px bitmap font, as a clear photo of a card would
 * read. Rendered in a child process: jimp loads its fonts with a dynamic import, which jest's
 * module system refuses.
 */
async function cardImage(lines: string[], type: 'image/png' | 'image/jpeg' = 'image/png'): Promise<Buffer> {
  const script = `
    const { Jimp, loadFont } = require('jimp');
    const { SANS_64_BLACK } = require('jimp/fonts');
    (async () => {
      const [lines, type] = JSON.parse(process.argv[1]);
      const font = await loadFont(SANS_64_BLACK);
      const image = new Jimp({ width: 1400, height: 120 + lines.length * 100, color: 0xffffffff });
      lines.forEach((text, i) => image.print({ font, x: 40, y: 40 + i * 100, text }));
      process.stdout.write((await image.getBuffer(type)).toString('base64'));
    })();`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, JSON.stringify([lines, type])], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return Buffer.from(stdout, 'base64');
}

/** A valid PNG whose header claims 60,000 × 60,000 pixels: a few hundred bytes that would decode to 14 GB. */
function pngBomb(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type), data, Buffer.alloc(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(60_000, 0);
  header.writeUInt32BE(60_000, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(60_001 * 10))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('synchronous contact import', () => {
  it('imports a CSV at once: created, errors and duplicates, by the asynchronous import’s rules', async () => {
    const me = await signUp(t.api);
    const first = await importFile(me.access, 'one.csv', 'Email,First Name\nold@example.com,Old\n');
    expect(first.status).toBe(200);
    const csv = [
      'E-mail,First Name,Last Name,Mobile,Tags',
      'ann@example.com,Ann,Lee,555-1,"vip; fair"',
      'not-an-email,Bad,Row,,',
      'ANN@example.com,Ann,Again,,',
      'old@example.com,Old,Again,,',
    ].join('\r\n');
    const response = await importFile(me.access, 'people.csv', csv);
    expect(response.status).toBe(200);
    expect(response.body.dryRun).toBe(false);
    expect(response.body.created).toHaveLength(1);
    expect(response.body.created[0]).toMatchObject({
      firstName: 'Ann',
      lastName: 'Lee',
      email: 'ann@example.com',
      phone: '555-1',
      tags: ['vip', 'fair'],
      stage: 'new',
    });
    expect(response.body.created[0].id).toMatch(/^cnt_/);
    expect(response.body.errors).toEqual([{ row: 2, message: 'Email "not-an-email" is not a valid email address.' }]);
    const old = (await records.contacts(me)).find((c) => c.email === 'old@example.com')!;
    expect(response.body.duplicates).toEqual([
      { row: 3, email: 'ANN@example.com', existingContactId: null },
      { row: 4, email: 'old@example.com', existingContactId: old.id },
    ]);
    expect(await emails(me)).toEqual(['ann@example.com', 'old@example.com']);
  });

  it('creates nothing on a dry run and answers what would be created', async () => {
    const me = await signUp(t.api);
    await importFile(me.access, 'one.csv', 'Email,First Name\nold@example.com,Old\n');
    const response = await importFile(me.access, 'people.csv', 'Email,First Name\nnew@example.com,New\nold@example.com,Old\n', {
      dryRun: true,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ dryRun: true, errors: [] });
    expect(response.body.created).toEqual([
      expect.objectContaining({ id: null, email: 'new@example.com', firstName: 'New', stage: 'new' }),
    ]);
    expect(response.body.duplicates).toEqual([{ row: 2, email: 'old@example.com', existingContactId: expect.stringMatching(/^cnt_/) }]);
    expect(await emails(me)).toEqual(['old@example.com']);
  });

  it('imports a CSV of 500 rows, the most it takes, and lists every contact', async () => {
    const me = await signUp(t.api);
    const lines = ['Email,First Name'];
    for (let i = 1; i <= 500; i++) lines.push(`p${i}@example.com,P${i}`);
    const response = await importFile(me.access, 'full.csv', lines.join('\n'));
    expect(response.status).toBe(200);
    expect(response.body.created).toHaveLength(500);
    expect(response.body.created[499]).toMatchObject({ email: 'p500@example.com', id: expect.stringMatching(/^cnt_/) });
    expect((await records.contacts(me)).length).toBe(500);
  });

  it('refuses a CSV of 501 rows with a 413 naming the asynchronous import, and creates nothing', async () => {
    const me = await signUp(t.api);
    const lines = ['Email,First Name'];
    for (let i = 1; i <= 501; i++) lines.push(`p${i}@example.com,P${i}`);
    const response = await importFile(me.access, 'big.csv', lines.join('\n'));
    expect(response.status).toBe(413);
    expect(response.body.detail).toContain('/api/crm/contacts/import/start/');
    expect(await emails(me)).toEqual([]);
  });

  it('imports vCards 2.1, 3.0 and 4.0 from one file, with a card without an email as an error', async () => {
    const me = await signUp(t.api);
    const vcf = [
      // vCard 2.1 as Outlook writes it: quoted-printable UTF-8 with a soft line break.
      'BEGIN:VCARD',
      'VERSION:2.1',
      'N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:M=C3=BCller;J=C3=B6rg',
      'FN;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:J=C3=B6rg M=C3=BCller',
      'EMAIL;PREF;INTERNET:joerg@example.com',
      'TEL;WORK;VOICE:+49 30 1234567',
      'NOTE;ENCODING=QUOTED-PRINTABLE:Met at the fair, =',
      'stand 12',
      'END:VCARD',
      // RFC 2426's example, with a folded line.
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Frank Dawson',
      'ORG:Lotus Development Corporation',
      'TITLE:Senior Pro',
      ' duct Manager',
      'EMAIL;TYPE=INTERNET,PREF:Frank_Dawson@Lotus.com',
      'TEL;TYPE=WORK,MSG:+1-919-676-9515',
      'END:VCARD',
      // RFC 6350's example.
      'BEGIN:VCARD',
      'VERSION:4.0',
      'FN:Simon Perreault',
      'N:Perreault;Simon;;;ing. jr,M.Sc.',
      'EMAIL;TYPE=work:simon.perreault@viagenie.ca',
      'TEL;VALUE=uri;TYPE="work,voice";PREF=1:tel:+1-418-656-9254;ext=102',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:No Email',
      'END:VCARD',
      '',
    ].join('\r\n');
    const response = await importFile(me.access, 'contacts.vcf', vcf);
    expect(response.status).toBe(200);
    expect(response.body.created.map((c: { email: string }) => c.email)).toEqual([
      'joerg@example.com',
      'Frank_Dawson@Lotus.com',
      'simon.perreault@viagenie.ca',
    ]);
    expect(response.body.created[0]).toMatchObject({ firstName: 'Jörg', lastName: 'Müller', phone: '+49 30 1234567' });
    expect(response.body.created[1]).toMatchObject({ firstName: 'Frank', lastName: 'Dawson', title: 'Senior Product Manager' });
    expect(response.body.errors).toEqual([{ row: 4, message: expect.stringContaining('Email is missing') }]);
    const joerg = (await records.contacts(me)).find((c) => c.email === 'joerg@example.com')!;
    expect(joerg.notes).toBe('Met at the fair, stand 12');
  });

  it('recognises a business-card photo into a contact', async () => {
    const me = await signUp(t.api);
    const png = await cardImage(['Ada Lovelace', 'Chief Engineer', 'Analytical Engines Ltd', 'ada@example.com', '+44 20 7946 0018']);
    const response = await importFile(me.access, 'card.png', png);
    expect(response.status).toBe(200);
    expect(response.body.errors).toEqual([]);
    expect(response.body.created).toEqual([
      expect.objectContaining({
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        title: 'Chief Engineer',
        phone: '+44 20 7946 0018',
      }),
    ]);
    const ada = (await records.contacts(me)).find((c) => c.email === 'ada@example.com')!;
    expect(ada.notes).toBe('Company: Analytical Engines Ltd');
  });

  it('answers what a JPEG business card would create on a dry run, creating nothing', async () => {
    const me = await signUp(t.api);
    const jpeg = await cardImage(['Grace Hopper', 'grace@example.com'], 'image/jpeg');
    const response = await importFile(me.access, 'card.jpg', jpeg, { dryRun: true });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ dryRun: true, errors: [], duplicates: [] });
    expect(response.body.created).toEqual([
      expect.objectContaining({ id: null, firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' }),
    ]);
    expect(await emails(me)).toEqual([]);
  });

  it('reads a PDF contact list, one contact per line with an email', async () => {
    const me = await signUp(t.api);
    const document = await PDFDocument.create();
    const page = document.addPage([600, 800]);
    const font = await document.embedFont(StandardFonts.Helvetica);
    ['Grace Hopper', 'grace@example.com', '+1 202 555 0143'].forEach((text, i) =>
      page.drawText(text, { x: 50 + i * 160, y: 700, size: 11, font }),
    );
    ['Alan Turing', 'alan@example.com', '+44 161 496 0000'].forEach((text, i) =>
      page.drawText(text, { x: 50 + i * 160, y: 680, size: 11, font }),
    );
    const response = await importFile(me.access, 'list.pdf', Buffer.from(await document.save()));
    expect(response.status).toBe(200);
    expect(response.body.created).toEqual([
      expect.objectContaining({ firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', phone: '+1 202 555 0143' }),
      expect.objectContaining({ firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com' }),
    ]);
  });

  it('refuses a PDF of more pages than it reads with a 422', async () => {
    const me = await signUp(t.api);
    const document = await PDFDocument.create();
    for (let i = 0; i < 21; i++) document.addPage([200, 200]);
    const response = await importFile(me.access, 'long.pdf', Buffer.from(await document.save()));
    expect(response.status).toBe(422);
    expect(response.body.detail).toBe('The PDF has 21 pages; at most 20 can be imported.');
  });

  it('stamps the source and answers a retry with the same Idempotency-Key without importing again', async () => {
    const me = await signUp(t.api);
    const sourceUid = await records.createSource(me, 'Card scanner');
    const headers = { 'Idempotency-Key': `sync-${Date.now()}` };
    const fields = { source_uid: sourceUid };
    const first = await importFile(me.access, 'one.csv', 'Email,First Name\nkey@example.com,Key\n', { fields, headers });
    const again = await importFile(me.access, 'one.csv', 'Email,First Name\nkey@example.com,Key\n', { fields, headers });
    expect(first.status).toBe(200);
    expect(first.body.created).toEqual([expect.objectContaining({ email: 'key@example.com' })]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await records.contacts(me)).map((c) => [c.email, c.source])).toEqual([['key@example.com', 'Card scanner']]);
  });

  it('refuses another file type with a 400', async () => {
    const me = await signUp(t.api);
    const response = await importFile(me.access, 'notes.txt', 'hello');
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain('.vcf');
  });

  it('answers 422 for a malformed PDF, vCard or image, and creates nothing', async () => {
    const me = await signUp(t.api);
    for (const [filename, content] of [
      ['broken.pdf', '%PDF-1.7\nthis is not a pdf'],
      ['broken.vcf', 'hello, no card here'],
      ['broken.jpg', Buffer.from('not a jpeg at all')],
    ] as const) {
      const response = await importFile(me.access, filename, content);
      expect({ filename, status: response.status }).toEqual({ filename, status: 422 });
      expect(typeof response.body.detail).toBe('string');
    }
    expect(await emails(me)).toEqual([]);
  });

  it('refuses a decompression bomb from its header, before decoding it', async () => {
    const me = await signUp(t.api);
    const response = await importFile(me.access, 'bomb.png', pngBomb());
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain('60000 × 60000');
  });

  it('refuses a file over 5 MB with a 413', async () => {
    const me = await signUp(t.api);
    const response = await importFile(me.access, 'big.pdf', Buffer.alloc(5 * 1024 * 1024 + 1, 0x20));
    expect(response.status).toBe(413);
  });
});

// Issue "One upload can stall the import service for every tenant", item 1.
describe('hostile files', () => {
  const MB = 1024 * 1024;

  /** A vCard 2.1 file of 5 MB whose one quoted-printable value is a run of soft line breaks. */
  function softBreakVCard(): Buffer {
    const head = 'BEGIN:VCARD\r\nVERSION:2.1\r\nEMAIL:soft@example.com\r\nNOTE;ENCODING=QUOTED-PRINTABLE:';
    const tail = 'z\r\nEND:VCARD\r\n';
    const breaks = 'a=\r\n'.repeat(Math.floor((5 * MB - head.length - tail.length) / 4));
    return Buffer.from(head + breaks + tail);
  }

  /** A one-page PDF whose page content is `content` (its stream dictionary extended by `dictionary`). */
  function rawPdf(content: Buffer, dictionary = ''): Buffer {
    const objects = [
      Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
      Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
      Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>'),
      Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
      Buffer.concat([Buffer.from(`<< /Length ${content.length}${dictionary} >>\nstream\n`), content, Buffer.from('\nendstream')]),
    ];
    const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
    const offsets: number[] = [];
    let at = parts[0]!.length;
    objects.forEach((body, i) => {
      const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
      offsets.push(at);
      parts.push(object);
      at += object.length;
    });
    const xref = [
      'xref',
      `0 ${objects.length + 1}`,
      '0000000000 65535 f ',
      ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    ];
    parts.push(Buffer.from(`${xref.join('\n')}\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
    return Buffer.concat(parts);
  }

  /** A 5 MB PDF whose text is one line without an email (a tiny font keeps it all on the page). */
  function oneLinePdf(): Buffer {
    return rawPdf(Buffer.from(`BT /F1 0.0001 Tf 10 700 Td (${'contact '.repeat(Math.floor((5 * MB - 2048) / 8))}) Tj ET`));
  }

  /** A PDF whose ~1 MB Flate content stream inflates to 1 GB. */
  async function flateBomb(): Promise<Buffer> {
    const deflate = createDeflate({ level: 9 });
    const out: Buffer[] = [];
    deflate.on('data', (chunk: Buffer) => out.push(chunk));
    const done = new Promise((resolve) => deflate.on('end', resolve));
    const zeros = Buffer.alloc(16 * MB);
    for (let i = 0; i < 64; i++) if (!deflate.write(zeros)) await new Promise((resolve) => deflate.once('drain', resolve));
    deflate.end();
    await done;
    return rawPdf(Buffer.concat(out), ' /Filter /FlateDecode');
  }

  /** Peak resident memory of a cluster process (VmHWM), MB. */
  function peakMb(name: string): number {
    const { pid } = (t.cluster.processes.get(name) as unknown as { child: { pid: number } }).child;
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
    return Math.round(Number(kb) / 1024);
  }

  /** Sign-ups are limited per client address (20 a minute), and this file makes many: wait for a turn. */
  async function signUpWhenAllowed(): Promise<SignedUp> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await signUp(t.api);
      } catch (error) {
        if (attempt >= 15 || !String(error).includes('429')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    }
  }

  let hostile: [string, Buffer][];
  let target: SignedUp;
  beforeAll(async () => {
    target = await signUpWhenAllowed();
    hostile = [
      ['soft-breaks.vcf', softBreakVCard()],
      ['one-line.pdf', oneLinePdf()],
      ['bomb.pdf', await flateBomb()],
    ];
  }, 120_000);

  it('builds the files the issue describes: 5 MB each but the bomb, which inflates 1,000 times', () => {
    expect(hostile.map(([name, content]) => [name, content.length <= 5 * MB && content.length > 4.9 * MB])).toEqual([
      ['soft-breaks.vcf', true],
      ['one-line.pdf', true],
      ['bomb.pdf', false],
    ]);
    expect(hostile[2]![1].length).toBeLessThan(1.5 * MB);
  });

  it.each([
    ['soft-breaks.vcf', 'The vCard file has a line longer than 1,000,000 characters'],
    // PDF.js needs more than a reader thread's heap for 5 million characters on one line, before the line limit.
    ['one-line.pdf', 'The file needs more memory to read than the import allows.'],
    ['bomb.pdf', 'larger than 32 MB once decompressed'],
  ])('refuses %s with a 422 that says why, creating nothing', async (name, why) => {
    const response = await importFile(target.access, name, hostile.find(([n]) => n === name)![1]);
    expect({ status: response.status, detail: response.body.detail }).toEqual({ status: 422, detail: expect.stringContaining(why) });
    expect(await emails(target)).toEqual([]);
  });

  it('answers 10 at once with 4xx or 503 while a small import from another workspace answers within 2 s', async () => {
    const attackers = [target, await signUpWhenAllowed(), await signUpWhenAllowed()];
    const other = await signUpWhenAllowed();
    const smallImport = async (email: string) => {
      const started = Date.now();
      const response = await importFile(other.access, 'small.csv', `Email,First Name\n${email},Small\n`);
      return { status: response.status, created: response.body.created?.length, ms: Date.now() - started };
    };
    // The same import on a quiet service, reported beside the one under load (a shared machine is slow too).
    const quiet = await smallImport('quiet@example.com');
    const answers = Array.from({ length: 10 }, (_, i) => {
      const [name, content] = hostile[i % hostile.length]!;
      // Read one after another, past the test client's 15 s; each within the service's 30 s limit.
      return importFile(attackers[i % attackers.length]!.access, name, content, { timeoutMs: 120_000 });
    });
    // Let the uploads arrive and their reading start, then import a small file from elsewhere.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const underLoad = await smallImport('small@example.com');
    expect([quiet, underLoad]).toMatchObject([
      { status: 200, created: 1 },
      { status: 200, created: 1 },
    ]);
    // On failure the diff shows both durations.
    expect({ within2s: underLoad.ms < 2_000, underLoadMs: underLoad.ms, quietMs: quiet.ms }).toMatchObject({ within2s: true });

    const statuses = (await Promise.all(answers)).map((r) => ({ status: r.status, detail: typeof r.body.detail }));
    for (const answer of statuses)
      expect([
        [422, 'string'],
        [503, 'string'],
      ]).toContainEqual([answer.status, answer.detail]);
    for (const attacker of attackers) expect(await emails(attacker)).toEqual([]);
    // The chart's pod limits: 1 GiB for import, 512 MiB for the gateway.
    expect(peakMb('import')).toBeLessThan(1024);
    expect(peakMb('gateway-1')).toBeLessThan(512);
  });
});
