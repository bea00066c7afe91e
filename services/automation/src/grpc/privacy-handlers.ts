/** Translation only: proto (privacy.v1.AutomationPrivacyService) ↔ automation's emails and webhook deliveries of a person. */
import type { CallContext, privacyV1, ServiceHandlers, UnaryHandler } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { PersonData } from '../application/person-data';

type M = privacyV1.AutomationPrivacyServiceMethods;
type Handlers = { [K in keyof M as string extends K ? never : K]: UnaryHandler<M[K]['request'], M[K]['response']> };

function workspaceOf(context: CallContext): string {
  if (!context.workspaceId) throw DomainError.unauthenticated('The call carries no workspace.');
  return context.workspaceId;
}

export function automationPrivacyHandlers(person: PersonData): ServiceHandlers {
  const handlers: Handlers = {
    ExportPersonData: async (r, c) => {
      const found = await person.export(workspaceOf(c), r.email, r.recordIds ?? []);
      return {
        emailsJson: found.emails.map((e) => JSON.stringify(e)),
        webhookDeliveriesJson: found.webhookDeliveries.map((d) => JSON.stringify(d)),
      };
    },
    ErasePersonData: async (r, c) => person.erase(workspaceOf(c), r.email, r.recordIds ?? []),
  };
  return handlers as ServiceHandlers;
}
