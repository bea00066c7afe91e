/**
 * Every change to a contact, lead, account or opportunity bumps its version: the strong ETag the
 * gateway answers and clients send back as If-Match. Records stored before versions existed are at 0.
 */
import { DomainError } from '@crm/observability';

export function versionOf(record: { version?: number }): number {
  return record.version ?? 0;
}

export function staleVersion(): DomainError {
  return DomainError.preconditionFailed('The record has changed since the version in If-Match; fetch it again and retry.');
}

/** Refuses a write made on a version the record has since left (expected undefined: no If-Match). */
export function requireVersion(record: { version?: number }, expected: number | undefined): void {
  if (expected !== undefined && versionOf(record) !== expected) throw staleVersion();
}
