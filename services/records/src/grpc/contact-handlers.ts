/** Contacts over gRPC: translation only, proto ↔ the contacts resource (and the import's batches of them). */
import type { recordsV1 } from '@crm/grpc';
import type { BatchCreateInput } from '../application/contact-batches';
import type { RecordsResources } from '../application/records-resources';
import type { ContactView } from '../application/views';
import { contactMessage, writeInput } from './proto-mapping';
import { CONTACT_FIELDS, fieldNames } from '@crm/vocabulary';
import { type RpcHandlers, callerOf, mergeRecords, nonEmpty, pageOf, paging } from './records-rpc';
import { contactFiltersOf } from './list-filters';

/** The contact fields a CSV row carries (ContactRow). */
const IMPORTED_CONTACT_FIELDS = fieldNames(CONTACT_FIELDS, (field) => field.import !== undefined);

type ContactRpc =
  | 'CreateContact'
  | 'GetContact'
  | 'UpdateContact'
  | 'DeleteContact'
  | 'ListContacts'
  | 'ListAccountContacts'
  | 'MergeContact'
  | 'BatchCreateContacts'
  | 'GetContactBatch';

export function contactHandlers(records: RecordsResources): RpcHandlers<ContactRpc> {
  return {
    CreateContact: async (r, c) => ({
      contact: contactMessage(await records.contacts.create(callerOf(c), writeInput(r.contact, r.fieldMask, r.invalidFields, 'create'))),
    }),
    GetContact: async (r, c) => ({ contact: contactMessage(await records.contacts.get(callerOf(c), r.id)) }),
    UpdateContact: async (r, c) => ({
      contact: contactMessage(
        await records.contacts.update(callerOf(c), r.id, {
          ...writeInput(r.contact, r.updateMask, r.invalidFields, 'update'),
          expectedVersion: r.expectedVersion,
        }),
      ),
    }),
    DeleteContact: async (r, c) => {
      await records.contacts.delete(callerOf(c), r.id, r.expectedVersion);
      return {};
    },
    ListContacts: async (r, c) => {
      const page = await records.contacts.list(callerOf(c), { ...contactFiltersOf(r), ...paging(r) });
      return { ...pageOf(page), contacts: page.items.map(contactMessage) };
    },
    ListAccountContacts: async (r, c) => {
      const page = await records.contacts.listOfAccount(callerOf(c), r.accountId, paging(r));
      return { ...pageOf(page), contacts: page.items.map(contactMessage) };
    },
    MergeContact: async (r, c) => ({ contact: contactMessage((await mergeRecords(records, 'contact', r, c)) as ContactView) }),
    BatchCreateContacts: async (r, c) => {
      const result = await records.contactBatches.create(callerOf(c), batchCreateInput(r));
      return { created: result.created, duplicates: result.duplicates, errors: result.errors, replayed: result.replayed };
    },
    GetContactBatch: async (r, c) => records.contactBatches.get(callerOf(c), r.idempotencyKey),
  };
}

/** An import's batch: each row's imported fields, blank ones left out (the proto carries no presence). */
function batchCreateInput(r: recordsV1.BatchCreateContactsRequest): BatchCreateInput {
  return {
    idempotencyKey: r.idempotencyKey,
    sourceUid: nonEmpty(r.sourceUid),
    importJobId: nonEmpty(r.importJobId),
    dryRun: r.dryRun,
    rows: r.rows.map(({ row, customFields, ...fields }) => {
      const cells: Partial<Record<string, string | string[]>> = fields;
      const body: Record<string, unknown> = {};
      for (const field of IMPORTED_CONTACT_FIELDS) if (cells[field]?.length) body[field] = cells[field];
      if (customFields) body.customFields = customFields;
      return { row, body };
    }),
  };
}
