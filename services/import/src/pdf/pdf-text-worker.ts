/** The worker thread of pdf-text.ts: reads one PDF and posts its text, or the reason it could not. */
import { parentPort, workerData } from 'node:worker_threads';
import { isDomainError } from '@crm/observability';
import { pdfLines } from './pdf-lines';

const { content, maxPages } = workerData as { content: Uint8Array; maxPages: number };
pdfLines(content, maxPages).then(
  (text) => parentPort!.postMessage({ text }),
  (error: unknown) =>
    parentPort!.postMessage({
      unreadable: isDomainError(error)
        ? error.message
        : `The file is not a readable PDF: ${error instanceof Error ? error.message : String(error)}`,
    }),
);
