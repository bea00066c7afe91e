import { duplicateReason, INLINE_BYTES, INLINE_ENTRIES, inlineReport, neutralisedCell } from './import-report';

const errors = (n: number, from = 1, message = 'Email is missing.') =>
  Array.from({ length: n }, (_, i) => ({ row: from + i * 2, message }));
const duplicates = (n: number, from = 2, email = 'a@b.io') =>
  Array.from({ length: n }, (_, i) => ({ row: from + i * 2, email, existingContactId: null }));

describe('the entries a job shows', () => {
  it('shows every entry of a small report, errors and duplicates apart, in row order', () => {
    expect(inlineReport(errors(2), duplicates(1))).toEqual({ errors: errors(2), duplicates: duplicates(1) });
  });

  it('shows at most 1,000 of each kind', () => {
    const shown = inlineReport(errors(INLINE_ENTRIES), duplicates(0));
    expect(shown.errors).toHaveLength(1000);
  });

  it('shows 1,000 duplicates with 32-character emails, then errors in row order while they fit the byte budget', () => {
    const shown = inlineReport(errors(INLINE_ENTRIES, 1, 'x'.repeat(300)), duplicates(INLINE_ENTRIES, 2, `${'y'.repeat(20)}@example.com`));
    expect(shown.duplicates).toHaveLength(INLINE_ENTRIES);
    expect(Buffer.byteLength(JSON.stringify(shown))).toBeLessThanOrEqual(INLINE_BYTES + 100);
    expect(shown.errors.length).toBeGreaterThan(0);
    expect(shown.errors.length).toBeLessThan(INLINE_ENTRIES);
    // The first errors in row order: nothing skipped before the cut.
    expect(shown.errors.map((e) => e.row)).toEqual(errors(shown.errors.length).map((e) => e.row));
  });

  it('cuts even duplicates when their emails are too long to fit, keeping the first in row order', () => {
    const shown = inlineReport(errors(INLINE_ENTRIES), duplicates(INLINE_ENTRIES, 2, `${'y'.repeat(240)}@b.io`));
    expect(Buffer.byteLength(JSON.stringify(shown))).toBeLessThanOrEqual(INLINE_BYTES + 100);
    expect(shown.duplicates.length).toBeGreaterThan(100);
    expect(shown.duplicates.map((d) => d.row)).toEqual(duplicates(shown.duplicates.length).map((d) => d.row));
    expect(shown.errors).toEqual([]);
  });

  it('counts bytes, not characters', () => {
    const shown = inlineReport(errors(INLINE_ENTRIES, 1, 'é'.repeat(200)), []);
    expect(Buffer.byteLength(JSON.stringify(shown))).toBeLessThanOrEqual(INLINE_BYTES + 100);
  });
});

describe('report cells', () => {
  it.each(['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('neutralises %j', (cell) => {
    expect(neutralisedCell(cell)).toBe(`'${cell}`);
  });

  it('leaves other cells as they are', () => {
    expect(neutralisedCell('Ann')).toBe('Ann');
    expect(neutralisedCell(' =1')).toBe(' =1');
    expect(neutralisedCell('')).toBe('');
  });
});

describe('duplicate reasons', () => {
  it('name the existing contact or the earlier row', () => {
    expect(duplicateReason({ email: 'a@b.io', existingContactId: 'cnt_1', earlierRow: null })).toBe(
      'Duplicate: a@b.io is already the contact cnt_1.',
    );
    expect(duplicateReason({ email: 'a@b.io', existingContactId: null, earlierRow: 7 })).toBe(
      'Duplicate: a@b.io is also in row 7 of this file.',
    );
  });
});
