import { deflateSync } from 'node:zlib';
import { checkImage, recogniseText } from './card-recognition';

/** A PNG header (and a little compressed data) claiming `width` × `height` greyscale pixels. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, Buffer.from(type), data, Buffer.alloc(4)]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1000))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('the image check before text recognition', () => {
  it('lets a photo of a phone camera through', () => {
    expect(() => checkImage(png(4032, 3024), 20_000_000)).not.toThrow();
  });

  it('refuses a decompression bomb from its header: a small file claiming 50,000 × 50,000 pixels', () => {
    const bomb = png(50_000, 50_000);
    expect(bomb.length).toBeLessThan(2_000);
    expect(() => checkImage(bomb, 20_000_000)).toThrow(
      expect.objectContaining({ kind: 'validation_failed', message: expect.stringContaining('50000 × 50000 pixels') }),
    );
  });

  it('refuses bytes that are no image, and images that are neither JPEG nor PNG', () => {
    expect(() => checkImage(Buffer.from('not an image'), 20_000_000)).toThrow('not a readable JPEG or PNG');
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([10, 0, 10, 0, 0, 0, 0]), Buffer.alloc(20)]);
    expect(() => checkImage(gif, 20_000_000)).toThrow('send a JPEG or PNG');
  });
});

describe('text recognition past its time limit', () => {
  it('gives up with a file that could not be read, and terminates its worker', async () => {
    await expect(recogniseText(png(400, 200), { maxPixels: 20_000_000, timeoutMs: 5 })).rejects.toMatchObject({
      kind: 'validation_failed',
      message: 'The image could not be read within 0.005 s.',
    });
  });
});
