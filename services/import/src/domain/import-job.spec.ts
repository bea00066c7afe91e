import { isFinished, processedRows, progressPercent, viewOf, type ImportJobDocument } from './import-job';

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

  it('sorts errors and duplicates by row in the view', () => {
    const view = viewOf(job(), {
      errors: [
        { row: 9, message: 'b' },
        { row: 2, message: 'a' },
      ],
      duplicates: [],
    });
    expect(view.errors.map((e) => e.row)).toEqual([2, 9]);
  });
});
