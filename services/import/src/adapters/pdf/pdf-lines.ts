/**
 * The text of a PDF, line by line, read with unpdf (PDF.js built for servers): text runs on one
 * line are joined with tabs, so the columns of a contact list stay apart. Runs inside the worker
 * of pdf-text.ts; a file PDF.js cannot open, or one of more than `maxPages` pages, is unreadable.
 */
import { getDocumentProxy } from 'unpdf';
import { unreadableFile } from '../../domain/contact-file-kind';

export interface TextRun {
  str?: string;
  transform?: number[];
  hasEOL?: boolean;
}

/** Text runs of one page as lines: a new line where the baseline moves or PDF.js marks an end of line. */
export function pageLines(items: TextRun[]): string[] {
  const lines: string[][] = [];
  let current: string[] = [];
  let lineY: number | undefined;
  for (const item of items) {
    const y = item.transform?.[5];
    if (lineY !== undefined && y !== undefined && Math.abs(y - lineY) > 2) {
      lines.push(current);
      current = [];
    }
    if (y !== undefined) lineY = y;
    if (item.str && item.str.trim() !== '') current.push(item.str.trim());
    if (item.hasEOL) {
      lines.push(current);
      current = [];
      lineY = undefined;
    }
  }
  lines.push(current);
  return lines.map((runs) => runs.join('\t')).filter((line) => line !== '');
}

export async function pdfLines(content: Uint8Array, maxPages: number): Promise<string> {
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    document = await getDocumentProxy(content, { isEvalSupported: false, stopAtErrors: true });
  } catch (error) {
    throw unreadableFile(`The file is not a readable PDF: ${(error as Error).message}`);
  }
  try {
    if (document.numPages > maxPages) throw unreadableFile(`The PDF has ${document.numPages} pages; at most ${maxPages} can be imported.`);
    const lines: string[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      const text = await page.getTextContent();
      lines.push(...pageLines(text.items as TextRun[]));
    }
    return lines.join('\n');
  } finally {
    void document.destroy();
  }
}
