/**
 * Export and erasure by email, across the services that hold a person's data. The gateway calls
 * each in turn (docs/privacy.md says why here and not in records): records first (the email goes on
 * the suppression list, then the contacts and leads go with everything attached, in one commit),
 * then import and automation (they blank what must keep its id), then records again for the one
 * `person.erased` event with every count, and last the kept Idempotency-Key answers that held the
 * person. Every step finds its data by the email again, so an erasure cut short is finished by
 * running it again.
 */
import type { CallerContext } from '@crm/grpc';
import type { IdempotencyStore } from '../../idempotency/idempotency-store';
import { PRIVACY_DEADLINE_MS, type PrivacyClients } from '../../clients/privacy-clients';
import { apiTimestamp } from '@crm/vocabulary';
import type { BundleSection } from './privacy-shapes';

const options = { timeoutMs: PRIVACY_DEADLINE_MS };

const parsed = (items: string[]): Record<string, unknown>[] => items.map((item) => JSON.parse(item) as Record<string, unknown>);

export type PersonBundle = { email: string; exportedAt: string } & Record<BundleSection, Record<string, unknown>[]>;

export interface ErasureReceipt {
  email: string;
  erasedAt: string;
  counts: Record<BundleSection, number>;
}

export async function exportPerson(clients: PrivacyClients, context: Partial<CallerContext>, email: string): Promise<PersonBundle> {
  const records = await clients.records.call('ExportPersonRecords', { email }, context, options);
  const [rows, automation] = await Promise.all([
    clients.import.call('ExportPersonRows', { email }, context, options),
    clients.automation.call('ExportPersonData', { email, recordIds: records.recordIds }, context, options),
  ]);
  return {
    email,
    exportedAt: apiTimestamp(new Date()),
    contacts: parsed(records.contactsJson),
    leads: parsed(records.leadsJson),
    notes: parsed(records.notesJson),
    tasks: parsed(records.tasksJson),
    activities: parsed(records.activitiesJson),
    auditEntries: parsed(records.auditEntriesJson),
    emails: parsed(automation.emailsJson),
    importRows: parsed(rows.rowsJson),
    webhookDeliveries: parsed(automation.webhookDeliveriesJson),
  };
}

export async function erasePerson(
  clients: PrivacyClients,
  answers: IdempotencyStore | undefined,
  context: Partial<CallerContext> & { workspaceId: string },
  email: string,
): Promise<ErasureReceipt> {
  const records = await clients.records.call('ErasePersonRecords', { email }, context, options);
  const [rows, automation] = await Promise.all([
    clients.import.call('ErasePersonRows', { email }, context, options),
    clients.automation.call('ErasePersonData', { email, recordIds: records.recordIds }, context, options),
  ]);
  const erased = records.counts!;
  const counts: Record<BundleSection, number> = {
    contacts: erased.contacts,
    leads: erased.leads,
    notes: erased.notes,
    tasks: erased.tasks,
    activities: erased.activities,
    auditEntries: erased.auditEntries,
    emails: automation.emails,
    importRows: rows.importRows,
    webhookDeliveries: automation.webhookDeliveries,
  };
  await clients.records.call('AnnouncePersonErased', { counts }, context, options);
  await answers?.forgetAnswersHolding(context.workspaceId, [email.toLowerCase(), ...records.recordIds.map((id) => id.toLowerCase())]);
  return { email, erasedAt: apiTimestamp(new Date()), counts };
}
