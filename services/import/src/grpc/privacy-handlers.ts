/** Translation only: proto (privacy.v1.ImportPrivacyService) ↔ the import's report rows of a person. */
import type { CallContext, privacyV1, ServiceHandlers, UnaryHandler } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { PersonRows } from '../application/person-rows';

type M = privacyV1.ImportPrivacyServiceMethods;
type Handlers = { [K in keyof M as string extends K ? never : K]: UnaryHandler<M[K]['request'], M[K]['response']> };

function workspaceOf(context: CallContext): string {
  if (!context.workspaceId) throw DomainError.unauthenticated('The call carries no workspace.');
  return context.workspaceId;
}

export function importPrivacyHandlers(rows: PersonRows): ServiceHandlers {
  const handlers: Handlers = {
    ExportPersonRows: async (r, c) => ({ rowsJson: (await rows.export(workspaceOf(c), r.email)).map((row) => JSON.stringify(row)) }),
    ErasePersonRows: async (r, c) => ({ importRows: await rows.erase(workspaceOf(c), r.email) }),
  };
  return handlers as ServiceHandlers;
}
