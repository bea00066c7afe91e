/**
 * Text recognition of a business-card photo with tesseract.js, in a worker thread of its own (so
 * the service's event loop keeps answering), with the English data of @tesseract.js-data/eng read
 * from node_modules: nothing is fetched or cached at run time. The image's header is read first
 * (image-size): a type other than JPEG or PNG, or more than `maxPixels` pixels (a decompression
 * bomb), is refused before anything is decoded. Past `timeoutMs` the worker is terminated. At most
 * AT_ONCE recognitions run at a time; the others wait their turn.
 */
import { dirname, join } from 'node:path';
import { imageSize } from 'image-size';
import { createWorker, OEM } from 'tesseract.js';
import { unreadableFile } from '../domain/contact-file-kind';

/** The LSTM model (what OEM.LSTM_ONLY reads), 3 MB. */
const LANG_PATH = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

export interface RecognitionLimits {
  maxPixels: number;
  timeoutMs: number;
}

/** Checks the image's header: a JPEG or PNG of at most `maxPixels`. */
export function checkImage(content: Buffer, maxPixels: number): void {
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(content);
  } catch {
    throw unreadableFile('The file is not a readable JPEG or PNG image.');
  }
  if (size.type !== 'png' && size.type !== 'jpg')
    throw unreadableFile(`The image is ${size.type ?? 'of an unknown type'}; send a JPEG or PNG.`);
  const pixels = size.width * size.height;
  if (!(pixels > 0)) throw unreadableFile('The image has no pixels.');
  if (pixels > maxPixels) {
    throw unreadableFile(
      `The image is ${size.width} × ${size.height} pixels; at most ${maxPixels.toLocaleString('en')} pixels can be read. Send a smaller photo.`,
    );
  }
}

/** Recognitions running at once in this process: each worker holds the model and the decoded image (~20 bytes a pixel). */
const AT_ONCE = 1;
let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < AT_ONCE) running += 1;
  // A finishing recognition hands its slot straight to the next in line.
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

export async function recogniseText(content: Buffer, limits: RecognitionLimits): Promise<string> {
  checkImage(content, limits.maxPixels);
  return inTurn(() => recognise(content, limits));
}

async function recognise(content: Buffer, limits: RecognitionLimits): Promise<string> {
  const worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath: LANG_PATH, gzip: true, cacheMethod: 'none' });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(unreadableFile(`The image could not be read within ${limits.timeoutMs / 1000} s.`)), limits.timeoutMs);
  });
  try {
    const { data } = await Promise.race([worker.recognize(content), timeout]);
    return data.text;
  } catch (error) {
    if (error instanceof Error && 'kind' in error) throw error;
    throw unreadableFile(`The image could not be read: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
    await worker.terminate().catch(() => undefined);
  }
}
