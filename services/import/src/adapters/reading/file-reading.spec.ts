import { FILE_READ_LIMITS } from '../../application/contact-file-readers';
import { readContacts } from './file-reading';

const read = (kind: 'vcard' | 'text', text: string) => readContacts(kind, Buffer.from(text), FILE_READ_LIMITS);

describe('files read for the synchronous import', () => {
  it('refuses a vCard whose soft breaks join into a line of more than 1,000,000 characters', async () => {
    const value = 'a=\r\n'.repeat(1_000_001);
    await expect(
      read('vcard', `BEGIN:VCARD\r\nVERSION:2.1\r\nNOTE;ENCODING=QUOTED-PRINTABLE:${value}z\r\nEND:VCARD\r\n`),
    ).rejects.toMatchObject({
      kind: 'validation_failed',
      message: expect.stringContaining('line longer than 1,000,000 characters'),
    });
  });

  it('refuses more cards than it imports before parsing them', async () => {
    const card = 'BEGIN:VCARD\r\nVERSION:3.0\r\nEMAIL:a@example.com\r\nEND:VCARD\r\n';
    await expect(read('vcard', card.repeat(501))).rejects.toMatchObject({ kind: 'payload_too_large' });
  });

  it('refuses text with a line of more than 1,000,000 characters', async () => {
    await expect(read('text', 'contact '.repeat(130_000))).rejects.toMatchObject({ kind: 'validation_failed' });
  });

  it('reads the contacts of a text', async () => {
    await expect(read('text', 'Ada Lovelace\nada@example.com')).resolves.toEqual([
      { row: 1, fields: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' } },
    ]);
  });
});
