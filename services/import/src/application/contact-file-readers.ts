/**
 * How each kind of file becomes rows: the CSV reader gives the asynchronous import's rows; a vCard
 * file gives one contact per card (row = card number); a photo or a PDF gives its text, from which
 * contacts are pulled out (row 1). Everything but the CSV (read as a stream, with its own line and
 * row limits) is read by a `FileReader`: reader threads in the service, the same code in-process in
 * specs. Unit tests may also pass readers of their own.
 */
import type { FieldMappings } from '../domain/column-plan';
import { INSTANT_IMPORT_LIMITS } from '../domain/contact-file-kind';
import type { ChunkRow } from '../domain/contact-row';
import type { CustomFieldCatalog } from '../domain/custom-fields';
import { readCsvRows } from '../adapters/csv/csv-rows';
import { recogniseText } from '../adapters/ocr/card-recognition';
import { readContacts, type FileReadLimits, type ReadContact } from '../adapters/reading/file-reading';
import type { FileReader } from '../adapters/reading/reader-threads';

export type { ReadContact } from '../adapters/reading/file-reading';

export interface ContactFileReaders {
  /** `customFields`: the workspace's contact custom fields, which headers may name. */
  csv(content: Buffer, mappings: FieldMappings, customFields?: CustomFieldCatalog): Promise<ChunkRow[]>;
  /**
   * `signal`: the caller has gone, so a read still waiting its turn need not run; `workspaceId`:
   * whose file it is (one workspace's share of the readers is limited).
   */
  vcard(content: Buffer, signal?: AbortSignal, workspaceId?: string): Promise<ReadContact[]>;
  image(content: Buffer, signal?: AbortSignal, workspaceId?: string): Promise<ReadContact[]>;
  pdf(content: Buffer, signal?: AbortSignal, workspaceId?: string): Promise<ReadContact[]>;
}

export function contactFileReaders(reader: FileReader, recognitionMs: number = INSTANT_IMPORT_LIMITS.readMs): ContactFileReaders {
  return {
    csv: (content, mappings, customFields) => readCsvRows(content, mappings, INSTANT_IMPORT_LIMITS.rows, customFields),
    vcard: (content, signal, workspaceId) => reader.read('vcard', content, signal, workspaceId),
    image: async (content, signal, workspaceId) => {
      const recognised = await recogniseText(content, { maxPixels: INSTANT_IMPORT_LIMITS.imagePixels, timeoutMs: recognitionMs }, signal);
      return reader.read('text', Buffer.from(recognised, 'utf8'), signal, workspaceId);
    },
    pdf: (content, signal, workspaceId) => reader.read('pdf', content, signal, workspaceId),
  };
}

/** The synchronous import's limits on what one file may give. */
export const FILE_READ_LIMITS: FileReadLimits = {
  maxContacts: INSTANT_IMPORT_LIMITS.rows,
  pdfPages: INSTANT_IMPORT_LIMITS.pdfPages,
  pdfInflatedBytes: 64 * 1024 * 1024,
};

/** The readers' work done on the calling thread, without time or memory bounds: specs only. */
export function inProcessReader(limits: FileReadLimits = FILE_READ_LIMITS): FileReader {
  return { read: (kind, content) => readContacts(kind, content, limits) };
}
