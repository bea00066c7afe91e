import { contactFileKind } from './contact-file-kind';

describe('the kind of an imported file', () => {
  it('goes by the extension, in any case', () => {
    expect(['a.csv', 'b.VCF', 'c.jpeg', 'd.JPG', 'e.png', 'f.Pdf'].map(contactFileKind)).toEqual([
      'csv',
      'vcard',
      'image',
      'image',
      'image',
      'pdf',
    ]);
  });

  it('refuses any other file as a bad request naming the ones it takes', () => {
    for (const name of ['notes.txt', 'people.csv.exe', 'no-extension', 'card.gif'])
      expect(() => contactFileKind(name)).toThrow(
        expect.objectContaining({ kind: 'invalid_argument', message: expect.stringContaining('.vcf') }),
      );
  });
});
