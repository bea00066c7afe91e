/**
 * A PDF's text, read in a worker thread of its own (pdf-text-worker.ts): PDF.js parses on the
 * thread it is called from, so a large or hostile file would otherwise hold the service's event
 * loop. The worker has a memory ceiling and is terminated past `timeoutMs`; whatever goes wrong
 * in it is a file that cannot be read.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { unreadableFile } from '../domain/contact-file-kind';

/** Heap of the worker: a 5 MB PDF of 20 pages of text needs a fraction of it. */
const WORKER_HEAP_MB = 256;

export function pdfText(content: Buffer, maxPages: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'pdf-text-worker.js'), {
      workerData: { content: new Uint8Array(content), maxPages },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    const timer = setTimeout(() => {
      reject(unreadableFile(`The PDF could not be read within ${timeoutMs / 1000} s.`));
      void worker.terminate();
    }, timeoutMs);
    worker.once('message', (answer: { text?: string; unreadable?: string }) => {
      clearTimeout(timer);
      if (answer.text !== undefined) resolve(answer.text);
      else reject(unreadableFile(answer.unreadable ?? 'The file is not a readable PDF.'));
      void worker.terminate();
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(unreadableFile(`The PDF could not be read: ${error.message}`));
    });
  });
}
