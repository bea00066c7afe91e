import iconv from 'iconv-lite';
import { vCardFields } from '../../domain/vcard-fields';
import { readVCards } from './vcard-reader';

const crlf = (lines: string[]) => `${lines.join('\r\n')}\r\n`;
const contacts = (text: string) => readVCards(text).map(vCardFields);

describe('vCard files as contacts', () => {
  it('reads the RFC 6350 (vCard 4.0) example: N, preferred email and tel URI, ORG units', () => {
    const text = crlf([
      'BEGIN:VCARD',
      'VERSION:4.0',
      'FN:Simon Perreault',
      'N:Perreault;Simon;;;ing. jr,M.Sc.',
      'BDAY:--0203',
      'GENDER:M',
      'LANG;PREF=1:fr',
      'ORG:Viagenie;Research',
      'TITLE:Research Scientist',
      'ADR;TYPE=work:;Suite D2-630;2875 Laurier;Quebec;QC;G1V 2M2;Canada',
      'TEL;VALUE=uri;TYPE="work,voice";PREF=1:tel:+1-418-656-9254;ext=102',
      'TEL;VALUE=uri;TYPE="work,cell,voice,video,text":tel:+1-418-262-6501',
      'EMAIL;TYPE=work:simon.perreault@viagenie.ca',
      'URL;TYPE=home:http://nomis80.org',
      'END:VCARD',
    ]);
    expect(contacts(text)).toEqual([
      {
        firstName: 'Simon',
        lastName: 'Perreault',
        email: 'simon.perreault@viagenie.ca',
        phone: '+1-418-656-9254;ext=102',
        title: 'Research Scientist',
        notes: 'Company: Viagenie, Research',
      },
    ]);
  });

  it('reads the RFC 2426 (vCard 3.0) example with folded lines and escaped text', () => {
    const text = crlf([
      'BEGIN:vCard',
      'VERSION:3.0',
      'FN:Frank Dawson',
      'ORG:Lotus Development Corporation',
      'TITLE:Senior Pro',
      ' duct Manager',
      'TEL;TYPE=VOICE,MSG,WORK:+1-919-676-9515',
      'TEL;TYPE=FAX,WORK:+1-919-676-9564',
      'EMAIL;TYPE=INTERNET,PREF:Frank_Dawson@Lotus.com',
      'EMAIL;TYPE=INTERNET:fdawson@earthlink.net',
      'NOTE:Met at the booth\\, twice.\\nCall back in May.',
      'END:vCard',
    ]);
    expect(contacts(text)).toEqual([
      {
        firstName: 'Frank',
        lastName: 'Dawson',
        email: 'Frank_Dawson@Lotus.com',
        phone: '+1-919-676-9515',
        title: 'Senior Product Manager',
        notes: 'Company: Lotus Development Corporation\nMet at the booth, twice.\nCall back in May.',
      },
    ]);
  });

  it('decodes vCard 2.1 quoted-printable values, soft line breaks and their charset (Outlook)', () => {
    const utf8 = crlf([
      'BEGIN:VCARD',
      'VERSION:2.1',
      'N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:M=C3=BCller;J=C3=B6rg',
      'EMAIL;PREF;INTERNET:joerg@example.com',
      'TEL;WORK;VOICE:+49 30 1234567',
      'TEL;HOME;VOICE:+49 30 7654321',
      'NOTE;ENCODING=QUOTED-PRINTABLE:First line=0D=0ASecond line that is long enough to be =',
      'broken by the encoder',
      'END:VCARD',
    ]);
    expect(contacts(utf8)).toEqual([
      {
        firstName: 'Jörg',
        lastName: 'Müller',
        email: 'joerg@example.com',
        phone: '+49 30 1234567',
        notes: 'First line\r\nSecond line that is long enough to be broken by the encoder',
      },
    ]);
    const latin = crlf([
      'BEGIN:VCARD',
      'VERSION:2.1',
      'N;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:Ren=E9e;Zo=EB',
      'EMAIL:zoe@example.com',
      'END:VCARD',
    ]);
    expect(contacts(latin)[0]).toMatchObject({ firstName: 'Zoë', lastName: 'Renée' });
  });

  it('reads every card of a file, as Apple and Google Contacts export them', () => {
    const text = crlf([
      'BEGIN:VCARD',
      'VERSION:3.0',
      'PRODID:-//Apple Inc.//macOS 14.0//EN',
      'N:Appleseed;John;;;',
      'FN:John Appleseed',
      'ORG:Apple Inc.;',
      'item1.EMAIL;type=INTERNET;type=pref:john@example.com',
      'item1.X-ABLabel:_$!<Other>!$_',
      'item2.TEL;type=CELL;type=VOICE;type=pref:+1 408 555 0101',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Jane Roe',
      'N:Roe;Jane;;;',
      'EMAIL;TYPE=INTERNET;TYPE=HOME:jane@example.org',
      'TEL;TYPE=CELL:+44 7700 900123',
      'END:VCARD',
      'BEGIN:VCARD',
      'VERSION:3.0',
      'FN:Nobody Without Email',
      'END:VCARD',
    ]);
    expect(contacts(text)).toEqual([
      { firstName: 'John', lastName: 'Appleseed', email: 'john@example.com', phone: '+1 408 555 0101', notes: 'Company: Apple Inc.' },
      { firstName: 'Jane', lastName: 'Roe', email: 'jane@example.org', phone: '+44 7700 900123' },
      { firstName: 'Nobody', lastName: 'Without Email' },
    ]);
  });

  it('reads a file written in windows-1252 without quoted-printable once decoded', () => {
    const bytes = iconv.encode(crlf(['BEGIN:VCARD', 'VERSION:2.1', 'N:Gómez;Inés', 'EMAIL:ines@example.com', 'END:VCARD']), 'windows-1252');
    expect(contacts(new TextDecoder('windows-1252').decode(bytes))[0]).toMatchObject({ firstName: 'Inés', lastName: 'Gómez' });
  });

  it('refuses text that holds no card', () => {
    expect(() => readVCards('Name,Email\nAda,ada@example.com\n')).toThrow('no BEGIN:VCARD');
  });
});

// Issue "One upload can stall the import service": each of these took seconds to minutes before
// (800 KB of soft breaks 13 s; 50 KB of blank lines or spaces 8 s each, ×4 per doubling). Read
// linearly they finish well inside jest's 5 s timeout, which is what fails the quadratic versions.
describe('vCard files built to be slow to read', () => {
  const MB = 1024 * 1024;
  const card = (middle: string) => `BEGIN:VCARD\r\nVERSION:2.1\r\n${middle}\r\nEMAIL:ada@example.com\r\nEND:VCARD\r\n`;

  it('joins 5 MB of quoted-printable soft breaks into one value', () => {
    const softBreaks = 'a=\r\n'.repeat(MB + MB / 4);
    const [fields] = contacts(card(`NOTE;ENCODING=QUOTED-PRINTABLE:${softBreaks}z`));
    expect(fields!.notes).toHaveLength(MB + MB / 4 + 1);
  });

  it('reads a card with 1 MB of blank lines in it', () => {
    expect(contacts(card('\r\n'.repeat(MB / 2)))).toEqual([{ email: 'ada@example.com' }]);
  });

  it('reads a card with a run of 1 MB of spaces in a value', () => {
    const [fields] = contacts(card(`FN:Ada${' '.repeat(MB)}Lovelace`));
    expect(fields!.email).toBe('ada@example.com');
  });

  it('reads a card with 1 MB of folded empty continuations', () => {
    expect(contacts(card(`FN:Ada${'\r\n '.repeat(MB / 3)}\r\nN:Lovelace;Ada`))[0]).toMatchObject({ firstName: 'Ada' });
  });
});
