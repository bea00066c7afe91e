import { inlineReport } from './import-report';
import { isFinished, isTerminal, keptReport, processedRows, progressPercent, viewOf, type ImportJobDocument } from './import-job';

function job(overrides: Partial<ImportJobDocument> = {}): ImportJobDocument {
  return {
    id: '00000000-0000-4000-8000-000000000000',
    filename: 'people.csv',
    fileId: 'f',
    fileBytes: 10,
    encoding: 'utf-8',
    sourceUid: null,
    sourceName: '',
    fieldMappings: {},
    actorId: 'usr_1',
    actorKind: 'user',
    status: 'processing',
    errorMessage: '',
    totalRows: 10,
    successCount: 0,
    errorCount: 0,
    duplicateCount: 0,
    chunksDone: 0,
    chunkCount: null,
    splitDone: false,
    ignoredColumns: [],
    errors: null,
    duplicates: null,
    lastProgressMs: 0,
    createdAt: '2024-01-01T00:00:00Z',
    startedAt: null,
    finishedAt: null,
    ...overrides,
  };
}

describe('import job', () => {
  it('counts processed rows as created + errors + duplicates', () => {
    expect(processedRows(job({ successCount: 3, errorCount: 2, duplicateCount: 1 }))).toBe(6);
  });

  it('shows 100% only once complete', () => {
    expect(progressPercent(job({ successCount: 10 }))).toBe(99);
    expect(progressPercent(job({ successCount: 10, status: 'complete' }))).toBe(100);
    expect(progressPercent(job({ successCount: 5 }))).toBe(50);
    expect(progressPercent(job({ totalRows: 0 }))).toBe(0);
  });

  it('is finished only when the file is fully split and every chunk is counted', () => {
    expect(isFinished(job({ splitDone: false, chunkCount: null, chunksDone: 3 }))).toBe(false);
    expect(isFinished(job({ splitDone: true, chunkCount: 4, chunksDone: 3 }))).toBe(false);
    expect(isFinished(job({ splitDone: true, chunkCount: 4, chunksDone: 4 }))).toBe(true);
    expect(isFinished(job({ splitDone: true, chunkCount: 0, chunksDone: 0 }))).toBe(true);
  });

  it('shows the report entries it is given, and none without them (the job list)', () => {
    const report = { errors: [{ row: 2, message: 'a' }], duplicates: [{ row: 5, email: 'x@y.io', existingContactId: null }] };
    expect(viewOf(job({ duplicateCount: 1, errorCount: 1 }), report)).toMatchObject({ ...report, errorCount: 1, duplicateCount: 1 });
    expect(viewOf(job({ duplicateCount: 1, errorCount: 1 }))).toMatchObject({
      errors: [],
      duplicates: [],
      errorCount: 1,
      duplicateCount: 1,
    });
  });

  it('keeps its report entries only once ended', () => {
    expect(keptReport(job())).toBeNull();
    expect(keptReport(job({ status: 'complete', errors: [], duplicates: [] }))).toEqual({ errors: [], duplicates: [] });
  });

  it('treats cancelled as an end, like complete and failed', () => {
    expect(['queued', 'processing', 'complete', 'failed', 'cancelled'].map((s) => isTerminal(s as ImportJobDocument['status']))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it('stays under 100 KB as a poll answer, and as a list of 50, however long its entries and names', () => {
    const long = job({
      filename: `${'f'.repeat(251)}.csv`,
      sourceName: 's'.repeat(200),
      errorMessage: 'e'.repeat(2000),
      ignoredColumns: [...Array.from({ length: 10 }, () => 'c'.repeat(101)), '(and 9,990 more)'],
      errorCount: 250_000,
      duplicateCount: 250_000,
    });
    const report = inlineReport(
      Array.from({ length: 1000 }, (_, i) => ({ row: 2 * i + 1, message: 'm'.repeat(400) })),
      Array.from({ length: 1000 }, (_, i) => ({
        row: 2 * i + 2,
        email: `${'a'.repeat(240)}@b.io`,
        existingContactId: 'cnt_0123456789abcdef',
      })),
    );
    expect(Buffer.byteLength(JSON.stringify(viewOf(long, report)))).toBeLessThan(100 * 1024);
    expect(Buffer.byteLength(JSON.stringify(Array.from({ length: 50 }, () => viewOf({ ...long, errorMessage: '' }))))).toBeLessThan(
      100 * 1024,
    );
  });
});
