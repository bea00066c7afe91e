/**
 * The files the synchronous import reads, told apart by their extension, and its limits. The
 * gateway refuses larger bodies before they arrive; these are checked again here.
 */
import { DomainError } from '@crm/observability';

export type ContactFileKind = 'csv' | 'vcard' | 'image' | 'pdf';

/** Contract decisions, Synchronous import. */
export const INSTANT_IMPORT_LIMITS = {
  fileBytes: 5 * 1024 * 1024,
  /** CSV data rows (the contract's limit), and contacts from any other file, which has no asynchronous import. */
  rows: 500,
  /**
   * Width × height an image may have: a phone's 12 MP photo fits, a tiny PNG claiming 50,000² does
   * not. Recognising 16 MP takes about 330 MB beside the service (the chart's import limit is 1 GiB).
   */
  imagePixels: 16_000_000,
  pdfPages: 20,
  /** Text recognition or extraction of one file. */
  readMs: 30_000,
} as const;

const KIND_BY_EXTENSION: Record<string, ContactFileKind> = {
  csv: 'csv',
  vcf: 'vcard',
  vcard: 'vcard',
  jpg: 'image',
  jpeg: 'image',
  png: 'image',
  pdf: 'pdf',
};

export function contactFileKind(filename: string): ContactFileKind {
  const extension = /\.([a-z0-9]+)$/i.exec(filename.trim())?.[1]?.toLowerCase() ?? '';
  const kind = KIND_BY_EXTENSION[extension];
  if (!kind) throw DomainError.invalid('Only .csv, .vcf, .jpg, .jpeg, .png and .pdf files can be imported here.');
  return kind;
}

/** A file this import cannot read: the gateway answers 422 {detail}. */
export function unreadableFile(message: string): DomainError {
  return new DomainError('validation_failed', message);
}
