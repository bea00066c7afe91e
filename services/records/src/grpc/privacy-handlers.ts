/** Translation only: proto (privacy.v1.RecordsPrivacyService) ↔ the records service's privacy operations. */
import type { privacyV1, ServiceHandlers, UnaryHandler } from '@crm/grpc';
import type { PersonData } from '../application/person-data';
import { callerOf } from './records-rpc';

type M = privacyV1.RecordsPrivacyServiceMethods;
type Handlers = { [K in keyof M as string extends K ? never : K]: UnaryHandler<M[K]['request'], M[K]['response']> };

const json = (items: Record<string, unknown>[]): string[] => items.map((item) => JSON.stringify(item));

export function recordsPrivacyHandlers(person: PersonData): ServiceHandlers {
  const handlers: Handlers = {
    ExportPersonRecords: async (r, c) => {
      const found = await person.export(callerOf(c), r.email);
      return {
        contactsJson: json(found.contacts),
        leadsJson: json(found.leads),
        notesJson: json(found.notes),
        tasksJson: json(found.tasks),
        activitiesJson: json(found.activities),
        auditEntriesJson: json(found.auditEntries),
        recordIds: found.recordIds,
      };
    },
    ErasePersonRecords: async (r, c) => {
      const { counts, recordIds } = await person.erase(callerOf(c), r.email);
      return { counts: { ...counts, emails: 0, importRows: 0, webhookDeliveries: 0 }, recordIds };
    },
    AnnouncePersonErased: async (r, c) => ({ eventId: await person.announce(callerOf(c), { ...(r.counts ?? {}) }) }),
    LiftSuppression: async (r, c) => ({ lifted: await person.lift(callerOf(c), r.email) }),
  };
  return handlers as ServiceHandlers;
}
