/**
 * How each kind of file becomes rows: the CSV reader gives the asynchronous import's rows; a vCard
 * file gives one contact per card (row = card number); a photo or a PDF gives its text, from which
 * contacts are pulled out (row 1). Unit tests pass readers of their own.
 */
import type { FieldMappings } from '../domain/column-plan';
import { documentContacts } from '../domain/card-text';
import { INSTANT_IMPORT_LIMITS, unreadableFile } from '../domain/contact-file-kind';
import type { ChunkRow, ContactFields } from '../domain/contact-row';
import { vCardFields } from '../domain/vcard-fields';
import { readCsvRows } from '../csv/csv-rows';
import { EncodingSniffer } from '../csv/text-encoding';
import { recogniseText } from '../ocr/card-recognition';
import { pdfText } from '../pdf/pdf-text';
import { readVCards } from '../vcard/vcard-reader';

export interface ReadContact {
  row: number;
  fields: ContactFields;
}

export interface ContactFileReaders {
  csv(content: Buffer, mappings: FieldMappings): Promise<ChunkRow[]>;
  vcard(content: Buffer): Promise<ReadContact[]>;
  /** `signal`: the caller has gone, so a recognition still waiting its turn need not run. */
  image(content: Buffer, signal?: AbortSignal): Promise<ReadContact[]>;
  pdf(content: Buffer): Promise<ReadContact[]>;
}

/** Bytes as text by the import's encoding rule (UTF-8, else windows-1252). */
function text(content: Buffer): string {
  const sniffer = new EncodingSniffer();
  sniffer.push(content);
  const { encoding, binary } = sniffer.finish();
  if (binary) throw unreadableFile('The file is not a text file: it contains binary data.');
  return new TextDecoder(encoding).decode(content);
}

/** One contact per piece of text the document holds, all on row 1. */
function fromText(value: string): ReadContact[] {
  return documentContacts(value).map((fields) => ({ row: 1, fields }));
}

export const contactFileReaders: ContactFileReaders = {
  csv: (content, mappings) => readCsvRows(content, mappings, INSTANT_IMPORT_LIMITS.rows),
  vcard: (content) => {
    let cards: ReturnType<typeof readVCards>;
    try {
      cards = readVCards(text(content));
    } catch (error) {
      if (error instanceof Error && 'kind' in error) throw error;
      throw unreadableFile(`The file is not a readable vCard: ${error instanceof Error ? error.message : String(error)}`);
    }
    return Promise.resolve(cards.map((card, index) => ({ row: index + 1, fields: vCardFields(card) })));
  },
  image: async (content, signal) =>
    fromText(
      await recogniseText(content, { maxPixels: INSTANT_IMPORT_LIMITS.imagePixels, timeoutMs: INSTANT_IMPORT_LIMITS.readMs }, signal),
    ),
  pdf: async (content) => fromText(await pdfText(content, INSTANT_IMPORT_LIMITS.pdfPages, INSTANT_IMPORT_LIMITS.readMs)),
};
