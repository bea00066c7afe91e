/**
 * A small CSV held in memory, read exactly as the asynchronous import reads an upload (the same
 * encoding rule, splitter, header spellings, custom fields, field_mappings and in-file duplicate rule), refusing
 * files with more than `maxRows` data rows as soon as the reader passes them.
 */
import { Readable } from 'node:stream';
import { DomainError } from '@crm/observability';
import type { FieldMappings } from '../../domain/column-plan';
import { unreadableFile } from '../../domain/contact-file-kind';
import type { ChunkRow } from '../../domain/contact-row';
import type { CustomFieldCatalog } from '../../domain/custom-fields';
import { splitCsv } from './chunk-splitter';
import { decodeText, EncodingSniffer } from './text-encoding';

export const ASYNC_IMPORT_PATH = '/api/crm/contacts/import/start/';

export async function readCsvRows(
  content: Buffer,
  mappings: FieldMappings,
  maxRows: number,
  customFields?: CustomFieldCatalog,
): Promise<ChunkRow[]> {
  const sniffer = new EncodingSniffer();
  sniffer.push(content);
  const { encoding, binary } = sniffer.finish();
  if (content.length === 0) throw unreadableFile('The file is empty.');
  if (binary) throw unreadableFile('The file is not a CSV text file: it contains binary data.');
  const rows: ChunkRow[] = [];
  const reading = splitCsv(Readable.from([content]).pipe(decodeText(encoding)), {
    chunkRows: maxRows + 1,
    maxChunkBytes: Infinity,
    mappings,
    customFields,
    onChunk: (chunk) => {
      if (rows.length + chunk.rows.length > maxRows) {
        throw new DomainError(
          'payload_too_large',
          `The file has more than ${maxRows} data rows; import it with the asynchronous import, POST ${ASYNC_IMPORT_PATH}`,
        );
      }
      rows.push(...chunk.rows);
    },
  });
  try {
    await reading;
  } catch (error) {
    // The file's own problems (no header, no email column, a giant line) are a 422 here.
    if (error instanceof DomainError && error.kind === 'invalid_argument') throw unreadableFile(error.message);
    throw error;
  }
  return rows;
}
