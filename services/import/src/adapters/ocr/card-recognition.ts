/**
 * Text recognition of a business-card photo with tesseract.js, in a worker thread of its own (so
 * the service's event loop keeps answering), with the English data of @tesseract.js-data/eng read
 * from node_modules: nothing is fetched or cached at run time. The image's header is read first
 * (image-size): a type other than JPEG or PNG, or more than `maxPixels` pixels (a decompression
 * bomb), is refused before anything is decoded. Past `timeoutMs` the worker is terminated.
 */
import { dirname, join } from 'node:path';
import { imageSize } from 'image-size';
import { createWorker, OEM } from 'tesseract.js';
import { unreadableFile } from '../../domain/contact-file-kind';
import { RecognitionTurns } from './recognition-turns';

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

/**
 * One recognition at a time per process: each worker holds the model and the decoded image (~20
 * bytes a pixel); a few more wait their turn.
 */
const turns = new RecognitionTurns(1, 8);

export async function recogniseText(content: Buffer, limits: RecognitionLimits, signal?: AbortSignal): Promise<string> {
  checkImage(content, limits.maxPixels);
  return turns.run(() => recognise(content, limits), signal);
}

/** Starts a worker, recognises, and terminates the worker; past `timeoutMs` (start-up included) it is terminated at once. */
async function recognise(content: Buffer, limits: RecognitionLimits): Promise<string> {
  let worker: Awaited<ReturnType<typeof createWorker>> | undefined;
  let over = false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(unreadableFile(`The image could not be read within ${limits.timeoutMs / 1000} s.`)), limits.timeoutMs);
  });
  const work = (async () => {
    worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath: LANG_PATH, gzip: true, cacheMethod: 'none' });
    if (over) throw new Error('timed out while starting');
    const { data } = await worker.recognize(content);
    return data.text;
  })();
  // Whatever happens to the work after a time-out, its worker goes.
  const done = work.then(
    () => undefined,
    () => undefined,
  );
  try {
    return await Promise.race([work, timeout]);
  } catch (error) {
    if (error instanceof Error && 'kind' in error) throw error;
    throw unreadableFile(`The image could not be read: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    over = true;
    clearTimeout(timer);
    if (worker) await worker.terminate().catch(() => undefined);
    else void done.then(() => worker?.terminate().catch(() => undefined));
  }
}
