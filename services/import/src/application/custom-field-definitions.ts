/**
 * The workspace's custom fields, read from records once per import job (at its split), per
 * synchronous import and per export request, in the name of whoever started it.
 */
import type { CallerContext } from '@crm/grpc';
import { CustomFieldCatalog, type CustomFieldDefinition } from '../domain/custom-fields';
import type { RecordsClient } from './ports';

const LIST_TIMEOUT_MS = 15_000;
/** Records' page size for custom fields; a workspace has at most 100 fields per kind, so one page. */
const PAGE = 100;
/** Pages read at most (a guard; one is enough while the 100-field limit holds). */
const MAX_PAGES = 10;

export async function readContactCustomFields(records: RecordsClient, caller: Partial<CallerContext>): Promise<CustomFieldCatalog> {
  return new CustomFieldCatalog(await readCustomFields(records, 'contact', caller));
}

/** A kind's custom fields (keys and labels), oldest first. */
export async function readCustomFields(
  records: RecordsClient,
  kind: string,
  caller: Partial<CallerContext>,
): Promise<CustomFieldDefinition[]> {
  const definitions: CustomFieldDefinition[] = [];
  let read = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await records.call('ListCustomFields', { kind, offset: read, limit: PAGE }, caller, {
      timeoutMs: LIST_TIMEOUT_MS,
    });
    const fields = answer.fields ?? [];
    read += fields.length;
    for (const field of fields) if (field.key) definitions.push({ key: field.key, label: field.label ?? '' });
    if (fields.length === 0 || read >= (answer.total ?? 0)) break;
  }
  return definitions;
}
