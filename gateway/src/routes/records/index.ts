/**
 * The records area of the public API: contacts, leads (+ conversion), accounts (+ their contacts),
 * opportunities, sources, tasks, activities, the audit log with each record's history and the custom field
 * definitions (/api/settings/custom-fields/), all translated to the records service over gRPC.
 */
import { Router } from 'express';
import { lazyRecordsClient, type RecordsClient } from '../../clients/records-client';
import type { OpenApiPaths } from '../../openapi/operation';
import type { RouteDeps, RouteModule } from '../route-module';
import type { GatewayConfig } from '../../config';
import type { AuthClient } from '../../clients/auth-client';
import { accountContactsPaths, accountContactsRoute, accountKind } from './accounts.routes';
import { contactKind } from './contacts.routes';
import { withCustomFields } from '../../openapi/custom-fields-document';
import { allCustomFields, customFieldPaths, customFieldRoutes } from './custom-fields.routes';
import { conversionPaths, conversionRoute, leadKind } from './leads.routes';
import { opportunityKind } from './opportunities.routes';
import { auditPaths, auditRoutes } from './record-audit.routes';
import { recordLogPaths, recordLogRoutes } from './record-logs.routes';
import { recordPaths, recordRoutes } from './record-routes';
import { recordsCall, type RecordsCall } from './records-call';
import { type RecordKind } from './record-kind';

const KINDS: RecordKind<string>[] = [contactKind, leadKind, accountKind, opportunityKind];

/** `records`: a client to use instead of one opened (on first use) at RECORDS_GRPC_ADDR; for tests. */
export function recordsRoutes(
  deps: RouteDeps,
  records: RecordsClient = lazyRecordsClient(deps.config.RECORDS_GRPC_ADDR, deps.internalTls),
): RouteModule {
  const call = recordsCall(records);
  return {
    name: 'records',
    access: 'authenticated',
    router: recordsRouter(call, deps.auth, deps.config),
    paths: recordsPaths(),
    documentFor: async (res, document) => withCustomFields(document, await allCustomFields(call, res)),
  };
}

function recordsRouter(call: RecordsCall, auth: AuthClient, config: GatewayConfig): Router {
  const router = Router();
  // The extra routes go first: `/api/leads/:id/convert` must not be taken for a lead id.
  const extraLeads = Router();
  conversionRoute(extraLeads, call);
  const extraAccounts = Router();
  accountContactsRoute(extraAccounts, call);
  router.use(extraLeads, extraAccounts);
  const settings = Router();
  customFieldRoutes(settings, call, config);
  router.use(settings);
  for (const kind of KINDS) router.use(recordRoutes(kind, call, config));
  router.use(auditRoutes(KINDS, call, auth, config));
  router.use(recordLogRoutes(call, config));
  return router;
}

/** The records area's part of the document, in the order of {@link recordsRouter}. */
export function recordsPaths(): OpenApiPaths {
  return {
    ...conversionPaths(),
    ...accountContactsPaths(),
    ...customFieldPaths(),
    ...Object.assign({}, ...KINDS.map((kind) => recordPaths(kind))),
    ...auditPaths(KINDS),
    ...recordLogPaths(),
  };
}
