/**
 * How many bytes a PDF's compressed streams inflate to, counted before PDF.js opens the file: PDF.js
 * inflates into buffers outside the JavaScript heap, which a worker's heap limit does not bound,
 * so a few 5 MB Flate bombs (each ~5 GB inflated) could take the whole pod. Every stream whose
 * data starts with a zlib header (what PDF.js's FlateDecode requires) is inflated here with zlib,
 * counting its output and stopping as soon as the file's total passes `maxBytes`. What cannot be
 * counted is refused: encrypted files (their streams are inflated only after decryption) and
 * filters that expand without zlib (LZW, or Flate behind another filter).
 */
import { createInflate } from 'node:zlib';
import { unreadableFile } from '../../domain/contact-file-kind';

const STREAM_START = /stream(?:\r\n|\n|\r)/g;
const ENCRYPTED = /\/Encrypt\b/;
const UNCOUNTED_FILTER =
  /\/(?:LZWDecode|LZW)\b|\[\s*\/(?:ASCII85Decode|A85|ASCIIHexDecode|AHx|RunLengthDecode|RL)\b[^\]]*\/(?:FlateDecode|Fl)\b/;

function hasZlibHeader(content: Buffer, at: number): boolean {
  const cmf = content[at];
  const flg = content[at + 1];
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

/** Inflates `data`, adding its output to `counted`; resolves the new total, stopping once it passes `maxBytes`. */
function inflatedTotal(data: Buffer, counted: number, maxBytes: number): Promise<number> {
  return new Promise((resolve) => {
    let total = counted;
    const inflate = createInflate({ chunkSize: 64 * 1024 });
    const done = () => resolve(total);
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        inflate.removeAllListeners('data');
        inflate.destroy();
        done();
      }
    });
    // A broken stream counts what it gave before breaking (PDF.js keeps that much too).
    inflate.on('error', done);
    inflate.on('end', done);
    inflate.on('close', done);
    inflate.end(data);
  });
}

/** Refuses the PDF (422) when its streams inflate to more than `maxBytes` together, or cannot be counted. */
export async function checkInflatedSize(content: Buffer, maxBytes: number): Promise<void> {
  const text = content.toString('latin1');
  if (ENCRYPTED.test(text))
    throw unreadableFile('The PDF is encrypted or password-protected; save it without protection and import it again.');
  if (UNCOUNTED_FILTER.test(text)) {
    throw unreadableFile(
      'The PDF uses a compression the import does not read (LZW, or Flate behind another filter); save it again as a standard PDF.',
    );
  }
  let total = 0;
  for (const match of text.matchAll(STREAM_START)) {
    const start = match.index + match[0].length;
    if (!hasZlibHeader(content, start)) continue;
    const end = text.indexOf('endstream', start);
    total = await inflatedTotal(content.subarray(start, end === -1 ? content.length : end), total, maxBytes);
    if (total > maxBytes) {
      throw unreadableFile(
        `The PDF's content is larger than ${Math.round(maxBytes / (1024 * 1024))} MB once decompressed; it cannot be read here.`,
      );
    }
  }
}
