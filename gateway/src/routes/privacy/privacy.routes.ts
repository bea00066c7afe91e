/**
 * Privacy (/api/privacy/): a person's data exported or erased by email, and the suppression list
 * lifted. Admins only (members 403; API keys are closed out in auth/route-scopes.ts and answer 403
 * here too). REST ↔ gRPC only: person-privacy.ts calls the services in turn.
 */
import { Router } from 'express';
import { adminOnly } from '../../auth/admin-guard';
import { lazyPrivacyClients, PRIVACY_DEADLINE_MS, type PrivacyClients } from '../../clients/privacy-clients';
import { personalDataAnswer } from '../../idempotency/idempotent-posts';
import { operation, type OpenApiPaths } from '../../openapi/operation';
import { callerContext } from '../../request-context';
import type { RouteDeps, RouteModule } from '../route-module';
import { bodySchemaOf } from '../field-table';
import { parseBody } from '../validate';
import { erasePerson, exportPerson } from './person-privacy';
import { bundleSchema, personBody, personFields, receiptSchema } from './privacy-shapes';

const BASE = '/api/privacy';

export function privacyRoutes(
  deps: RouteDeps,
  clients: PrivacyClients = lazyPrivacyClients(
    { records: deps.config.RECORDS_GRPC_ADDR, import: deps.config.IMPORT_GRPC_ADDR, automation: deps.config.AUTOMATION_GRPC_ADDR },
    deps.internalTls,
  ),
): RouteModule {
  const router = Router();
  const admins = adminOnly(deps.auth);

  router.post(`${BASE}/export`, admins, personalDataAnswer, async (req, res) => {
    const { email } = parseBody(personBody, req.body);
    res.json(await exportPerson(clients, callerContext(res), email));
  });

  router.post(`${BASE}/erase`, admins, personalDataAnswer, async (req, res) => {
    const { email } = parseBody(personBody, req.body);
    res.json(await erasePerson(clients, deps.idempotencyStore, callerContext(res), email));
  });

  router.delete(`${BASE}/suppressions`, admins, async (req, res) => {
    const { email } = parseBody(personBody, req.body);
    await clients.records.call('LiftSuppression', { email }, callerContext(res), { timeoutMs: PRIVACY_DEADLINE_MS });
    res.status(204).end();
  });

  return { name: 'privacy', access: 'authenticated', router, paths: privacyPaths() };
}

const tags = ['privacy'];
const ADMIN_ONLY = 'Admins only: members and API keys answer 403.';
const NOT_KEPT =
  'The answer holds personal data, so an `Idempotency-Key` does not keep it: a retry with the key answers 409 and runs nothing.';

/** The OpenAPI part of {@link privacyRoutes}. */
export function privacyPaths(): OpenApiPaths {
  return {
    '/api/privacy/export/': {
      post: operation({
        operationId: 'exportPerson',
        summary: 'Everything the workspace holds about one person, by email',
        description: `Every contact and lead with the email (compared case-insensitively) and everything attached to them. ${NOT_KEPT} ${ADMIN_ONLY}`,
        tags,
        authenticated: true,
        roles: ['admin'],
        requestBody: bodySchemaOf(personFields, 'create'),
        responses: { 200: { description: 'The bundle.', schema: bundleSchema } },
        errors: [403],
      }),
    },
    '/api/privacy/erase/': {
      post: operation({
        operationId: 'erasePerson',
        summary: 'Erase one person everywhere, by email, and suppress the email',
        description: `Deletes every contact and lead with the email and everything attached (notes, tasks, activities); audit entries, outbound emails, import report rows and webhook delivery payloads keep their ids and lose their values (\`"[erased]"\`); search finds nothing. Sends \`person.erased\` (\`data: {counts}\`, never the email). The email goes on the workspace's suppression list (as a keyed hash): creating, updating, batch-writing or importing it is refused (422 on \`email\`, a row error) until \`DELETE /api/privacy/suppressions/\`. An email nobody has answers zero counts and is suppressed all the same. See docs/privacy.md. ${NOT_KEPT} ${ADMIN_ONLY}`,
        tags,
        authenticated: true,
        roles: ['admin'],
        requestBody: bodySchemaOf(personFields, 'create'),
        responses: { 200: { description: 'The receipt.', schema: receiptSchema } },
        errors: [403],
      }),
    },
    '/api/privacy/suppressions/': {
      delete: operation({
        operationId: 'liftSuppression',
        summary: 'Take an email off the suppression list',
        description: `The email may be written again. An email that was not suppressed answers 204 too. ${ADMIN_ONLY}`,
        tags,
        authenticated: true,
        roles: ['admin'],
        requestBody: bodySchemaOf(personFields, 'create'),
        responses: { 204: { description: 'Lifted.' } },
        errors: [403],
      }),
    },
  };
}
