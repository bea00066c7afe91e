/**
 * The synchronous import (POST /api/contacts/import/): one small file read at once — CSV, vCard,
 * business-card photo or PDF — its rows checked by the asynchronous import's rules, and its
 * contacts created in one records batch, or, in a dry run, checked by records as that batch and not created.
 */
import { randomUUID } from 'node:crypto';
import type { CallerContext, importV1, recordsV1 } from '@crm/grpc';
import { DomainError, isDomainError } from '@crm/observability';
import { mapsCustomFields, parseFieldMappings, resolveCustomTargets } from '../domain/column-plan';
import { contactFileKind, INSTANT_IMPORT_LIMITS } from '../domain/contact-file-kind';
import { sortRows, type SortedRows } from './contact-rows';
import { emailKey, recordsProblem, rowProblem, type ChunkRow, type ContactFields } from '../domain/contact-row';
import type { ContactFileReaders } from './contact-file-readers';
import { readContactCustomFields } from './custom-field-definitions';
import type { RecordsClient } from './ports';

const RECORDS_TIMEOUT_MS = 30_000;

export interface InstantImportRequest {
  filename: string;
  content: Buffer;
  sourceUid: string | null;
  fieldMappings: string | undefined;
  dryRun: boolean;
  /** Aborted when the caller has gone. */
  signal?: AbortSignal;
}

export interface InstantImportDeps {
  records: RecordsClient;
  readers: ContactFileReaders;
}

type Answer = importV1.ImportContactsNowResponse;

export async function importContactsNow(
  deps: InstantImportDeps,
  caller: Partial<CallerContext>,
  request: InstantImportRequest,
): Promise<Answer> {
  const kind = contactFileKind(request.filename);
  if (request.content.length > INSTANT_IMPORT_LIMITS.fileBytes) {
    throw new DomainError('payload_too_large', `The file is larger than the ${INSTANT_IMPORT_LIMITS.fileBytes / (1024 * 1024)} MB limit.`);
  }
  let mappings = parseFieldMappings(request.fieldMappings);
  // A CSV's headers may name the workspace's contact custom fields; a mapping to one is checked like a built-in one.
  const customFields = kind === 'csv' || mapsCustomFields(mappings) ? await readContactCustomFields(deps.records, caller) : undefined;
  if (customFields) mappings = resolveCustomTargets(mappings, customFields);
  const rows =
    kind === 'csv'
      ? await deps.readers.csv(request.content, mappings, customFields)
      : numbered(await deps.readers[kind](request.content, request.signal, caller.workspaceId));
  if (rows.length > INSTANT_IMPORT_LIMITS.rows) {
    throw new DomainError(
      'payload_too_large',
      `The file holds ${rows.length} contacts; at most ${INSTANT_IMPORT_LIMITS.rows} can be imported at once.`,
    );
  }
  const sorted = sortRows(rows);
  const answer: Answer = {
    created: [],
    errors: sorted.errors.map(({ row, message }) => ({ row, message })),
    duplicates: sorted.duplicates.map(({ row, email }) => ({ row, email, existingContactId: '' })),
  };
  if (sorted.toCreate.length > 0) await createContacts(deps.records, caller, request.sourceUid, sorted, answer, request.dryRun);
  else if (request.sourceUid) await checkSource(deps.records, caller, request.sourceUid);
  answer.errors.sort((a, b) => a.row - b.row);
  answer.duplicates.sort((a, b) => a.row - b.row);
  answer.created.sort((a, b) => a.row - b.row);
  return answer;
}

/**
 * Contacts read from a vCard file (one per card, from 1) or from an image or a PDF (all row 1),
 * with the in-file duplicate rule of the CSV splitter: a later valid row with an earlier email.
 */
function numbered(contacts: { row: number; fields: ContactFields }[]): ChunkRow[] {
  const seen = new Map<string, number>();
  return contacts.map(({ row, fields }) => {
    if (rowProblem(fields) !== undefined) return { row, cells: [], fields };
    const key = emailKey(fields.email!);
    const earlier = seen.get(key);
    if (earlier !== undefined) return { row, cells: [], fields, duplicateOf: earlier };
    seen.set(key, row);
    return { row, cells: [], fields };
  });
}

function sourceRefused(error: unknown, sourceUid: string): never {
  if (isDomainError(error) && (error.kind === 'not_found' || error.kind === 'invalid_argument')) {
    throw DomainError.invalid(`Unknown source_uid: no source ${JSON.stringify(sourceUid.slice(0, 100))} in this workspace.`);
  }
  throw error;
}

async function checkSource(records: RecordsClient, caller: Partial<CallerContext>, sourceUid: string): Promise<void> {
  await records
    .call('GetSource', { uid: sourceUid }, caller, { timeoutMs: RECORDS_TIMEOUT_MS })
    .catch((error: unknown) => sourceRefused(error, sourceUid));
}

async function createContacts(
  records: RecordsClient,
  caller: Partial<CallerContext>,
  sourceUid: string | null,
  sorted: SortedRows,
  answer: Answer,
  dryRun: boolean,
): Promise<void> {
  // A dry run is the same call, which records checks exactly as a real one and does not write.
  // Records answers by row number, and every contact of an image or a PDF is on row 1: the batch
  // numbers its rows 1..n and the answer is mapped back to the file's rows.
  const sent = sorted.toCreate.map((row, index) => ({ ...row, row: index + 1 }));
  const fileRow = (sentRow: number) => sorted.toCreate[sentRow - 1]!.row;
  let result: recordsV1.BatchCreateContactsResponse;
  try {
    result = await records.call(
      'BatchCreateContacts',
      { idempotencyKey: `instant:${randomUUID()}`, rows: sent, sourceUid: sourceUid ?? '', dryRun },
      caller,
      { timeoutMs: RECORDS_TIMEOUT_MS },
    );
  } catch (error) {
    if (sourceUid) sourceRefused(error, sourceUid);
    throw error;
  }
  for (const created of result.created) answer.created.push({ ...sorted.toCreate[created.row - 1]!, contactId: created.contactId });
  for (const duplicate of result.duplicates) {
    answer.duplicates.push({
      row: fileRow(duplicate.row),
      email: duplicate.email,
      existingContactId: duplicate.sameImport ? '' : duplicate.existingContactId,
    });
  }
  for (const error of result.errors) answer.errors.push({ row: fileRow(error.row), message: recordsProblem(error.message) });
}
