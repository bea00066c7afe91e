import { deflateSync } from 'node:zlib';
import { checkInflatedSize } from './pdf-inflated-size';

const MB = 1024 * 1024;

/** A PDF-shaped file with one Flate stream of `inflated` zero bytes (what matters here is its streams). */
function pdfWithStream(inflated: number, dictionary = '/Filter /FlateDecode'): Buffer {
  const data = deflateSync(Buffer.alloc(inflated));
  return Buffer.concat([
    Buffer.from(`%PDF-1.7\n4 0 obj\n<< /Length ${data.length} ${dictionary} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1'),
  ]);
}

describe("a PDF's decompressed size", () => {
  it('lets streams that inflate to less than the limit through', async () => {
    await expect(checkInflatedSize(pdfWithStream(2 * MB), 4 * MB)).resolves.toBeUndefined();
  });

  it('refuses a Flate bomb (1 GB inflated from 1 MB) once the limit is passed, as a file that cannot be read', async () => {
    const bomb = pdfWithStream(1024 * MB);
    expect(bomb.length).toBeLessThan(1.1 * MB);
    await expect(checkInflatedSize(bomb, 4 * MB)).rejects.toMatchObject({
      kind: 'validation_failed',
      message: expect.stringContaining('larger than 4 MB once decompressed'),
    });
  });

  it('counts every stream of the file together', async () => {
    const twice = Buffer.concat([pdfWithStream(3 * MB), pdfWithStream(3 * MB)]);
    await expect(checkInflatedSize(twice, 4 * MB)).rejects.toMatchObject({ kind: 'validation_failed' });
  });

  it('refuses what it cannot count: an encrypted file, LZW, Flate behind another filter', async () => {
    for (const dictionary of ['/Filter /FlateDecode /Encrypt 5 0 R', '/Filter /LZWDecode', '/Filter [/ASCII85Decode /FlateDecode]']) {
      await expect(checkInflatedSize(pdfWithStream(1024, dictionary), 4 * MB)).rejects.toMatchObject({ kind: 'validation_failed' });
    }
  });
});
