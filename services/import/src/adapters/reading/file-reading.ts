/**
 * What a reader thread does with one file (reader-thread.ts), kept apart from the thread so specs
 * can call it directly: a vCard file becomes one contact per card, a PDF or the text recognised on
 * a photo becomes the contacts its text describes. Each step is linear in the file's size; the
 * thread around it bounds time and memory.
 */
import { DomainError } from '@crm/observability';
import { documentContacts } from '../../domain/card-text';
import { unreadableFile } from '../../domain/contact-file-kind';
import type { ContactFields } from '../../domain/contact-row';
import { vCardFields } from '../../domain/vcard-fields';
import { MAX_LINE_CHARS } from '../csv/chunk-splitter';
import { EncodingSniffer } from '../csv/text-encoding';
import { checkInflatedSize } from '../pdf/pdf-inflated-size';
import { pdfLines } from '../pdf/pdf-lines';
import { readVCards } from '../vcard/vcard-reader';

export type ThreadReadKind = 'vcard' | 'pdf' | 'text';

export interface ReadContact {
  row: number;
  fields: ContactFields;
}

export interface FileReadLimits {
  /** Contacts one file may give (the synchronous import's row limit). */
  maxContacts: number;
  pdfPages: number;
  /** Bytes a PDF's streams may inflate to, together. */
  pdfInflatedBytes: number;
}

/** Bytes as text by the import's encoding rule (UTF-8, else windows-1252). */
function text(content: Uint8Array): string {
  const sniffer = new EncodingSniffer();
  sniffer.push(Buffer.from(content.buffer, content.byteOffset, content.byteLength));
  const { encoding, binary } = sniffer.finish();
  if (binary) throw unreadableFile('The file is not a text file: it contains binary data.');
  return new TextDecoder(encoding).decode(content);
}

function tooMany(count: number, max: number): DomainError {
  return new DomainError('payload_too_large', `The file holds ${count} contacts; at most ${max} can be imported at once.`);
}

function vCardContacts(content: Uint8Array, limits: FileReadLimits): ReadContact[] {
  const value = text(content);
  // Counted before parsing: a 5 MB file of tiny cards would otherwise be parsed whole to be refused.
  const cards = value.match(/BEGIN:VCARD/gi)?.length ?? 0;
  if (cards > limits.maxContacts) throw tooMany(cards, limits.maxContacts);
  let read: ReturnType<typeof readVCards>;
  try {
    read = readVCards(value, (joined) => checkLines(joined, 'vCard file'));
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw unreadableFile(`The file is not a readable vCard: ${error instanceof Error ? error.message : String(error)}`);
  }
  return read.map((card, index) => ({ row: index + 1, fields: vCardFields(card) }));
}

/**
 * A line longer than any contact file's (the CSV import's MAX_LINE_CHARS): the file is refused
 * rather than read into one giant value.
 */
function checkLines(value: string, what: string): void {
  let start = 0;
  for (let end = value.indexOf('\n'); ; end = value.indexOf('\n', start)) {
    if ((end === -1 ? value.length : end) - start > MAX_LINE_CHARS) {
      throw unreadableFile(
        `The ${what} has a line longer than ${MAX_LINE_CHARS.toLocaleString('en')} characters; it does not look like a contact file.`,
      );
    }
    if (end === -1) return;
    start = end + 1;
  }
}

/** One contact per piece of text the document holds, all on row 1. */
function textContacts(value: string, what: string): ReadContact[] {
  checkLines(value, what);
  return documentContacts(value).map((fields) => ({ row: 1, fields }));
}

export async function readContacts(kind: ThreadReadKind, content: Uint8Array, limits: FileReadLimits): Promise<ReadContact[]> {
  switch (kind) {
    case 'vcard':
      return vCardContacts(content, limits);
    case 'pdf': {
      await checkInflatedSize(Buffer.from(content.buffer, content.byteOffset, content.byteLength), limits.pdfInflatedBytes);
      return textContacts(await pdfLines(content, limits.pdfPages), 'PDF');
    }
    case 'text':
      return textContacts(new TextDecoder().decode(content), 'recognised text');
  }
}
