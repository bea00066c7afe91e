/**
 * The records area of the public API: contacts, leads (+ conversion), accounts (+ their contacts),
 * opportunities, sources, tasks, activities, the audit log with each record's history and the custom field
 * definitions (/api/settings/custom-fields/), all translated to the records service over gRPC.
 */
import { Router } from 'express';
import { lazyRecordsClient, type RecordsClient } from '../../clients/records-client';
import type { OpenApiPaths } from '../../openapi/operation';
import type { RouteDeps, RouteModule } from '../route-module';
import { accountContactsRoute, accountKind } from './accounts.routes';
import { contactKind } from './contacts.routes';
import { withCustomFields } from '../../openapi/custom-fields-document';
import { allCustomFields, customFieldRoutes } from './custom-fields.routes';
import { conversionRoute, leadKind } from './leads.routes';
import { opportunityKind } from './opportunities.routes';
import { auditRoutes } from './record-audit.routes';
import { recordLogRoutes } from './record-logs.routes';
import { recordRoutes } from './record-routes';
import { recordsCall } from './records-call';
import { type RecordKind } from './record-kind';

/** `records`: a client to use instead of one opened (on first use) at RECORDS_GRPC_ADDR; for tests. */
export function recordsRoutes(
  deps: RouteDeps,
  records: RecordsClient = lazyRecordsClient(deps.config.RECORDS_GRPC_ADDR, deps.internalTls),
): RouteModule {
  const call = recordsCall(records);
  const router = Router();
  const paths: OpenApiPaths = {};
  // The extra routes go first: `/api/leads/:id/convert` must not be taken for a lead id.
  const extraLeads = Router();
  Object.assign(paths, conversionRoute(extraLeads, call));
  const extraAccounts = Router();
  Object.assign(paths, accountContactsRoute(extraAccounts, call));
  router.use(extraLeads, extraAccounts);
  const settings = Router();
  Object.assign(paths, customFieldRoutes(settings, call, deps.config));
  router.use(settings);
  for (const kind of [contactKind, leadKind, accountKind, opportunityKind] as const) {
    const routes = recordRoutes(kind as Parameters<typeof recordRoutes>[0], call, deps.config);
    router.use(routes.router);
    Object.assign(paths, routes.paths);
  }
  const kinds = [contactKind, leadKind, accountKind, opportunityKind].map((kind) => kind as unknown as RecordKind<string>);
  const audit = auditRoutes(kinds, call, deps.auth, deps.config);
  router.use(audit.router);
  Object.assign(paths, audit.paths);
  const logs = recordLogRoutes(call, deps.config);
  router.use(logs.router);
  Object.assign(paths, logs.paths);
  return {
    name: 'records',
    access: 'authenticated',
    router,
    paths,
    documentFor: async (res, document) => withCustomFields(document, await allCustomFields(call, res)),
  };
}
