import { csvCell, fieldValue, fileHeader, recordLine } from './export-rows';

describe('export lines', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('a CSV cell starting like a formula (%j) gets a leading apostrophe', (value) => {
    expect(csvCell(value).replace(/^"|"$/g, '')).toBe(`'${value}`);
  });

  it('leaves other text, numbers and booleans as they are', () => {
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(false)).toBe('false');
    expect(csvCell(null)).toBe('');
  });

  it('quotes cells holding commas, quotes or line breaks, quotes doubled', () => {
    expect(csvCell('Buyer, senior')).toBe('"Buyer, senior"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=a,b')).toBe(`"'=a,b"`);
  });

  it('joins tags with commas and escapes the joined cell', () => {
    expect(csvCell(['vip', 'partner'])).toBe('"vip,partner"');
    expect(csvCell(['-x'])).toBe("'-x");
  });

  it('writes a linked name as null when its link is unset, as the list item does', () => {
    expect(fieldValue({ accountName: 'stale' }, 'accountName')).toBeNull();
    expect(fieldValue({ accountId: null, accountName: 'stale' }, 'accountName')).toBeNull();
    expect(fieldValue({ accountId: 'acc_1', accountName: 'Acme' }, 'accountName')).toBe('Acme');
    expect(fieldValue({ customFields: { size: 3 } }, 'customFields.size')).toBe(3);
  });

  it('writes CSV with a header and CRLF, JSON lines with the fields in order', () => {
    expect(fileHeader('csv', ['id', 'email'])).toBe('id,email\r\n');
    expect(fileHeader('jsonl', ['id'])).toBe('');
    expect(recordLine('csv', ['id', 'email'], { id: 'cnt_1', email: 'a@b.c' })).toBe('cnt_1,a@b.c\r\n');
    expect(recordLine('jsonl', ['email', 'id'], { id: 'cnt_1', email: '=x' })).toBe('{"email":"=x","id":"cnt_1"}\n');
  });
});
