import { apiKeyRoutes } from './api-keys.routes';
import { automationRoutes } from './automation/automation.routes';
import { currentUserRoutes, sessionRoutes } from './auth.routes';
import { eventRoutes } from './events/events.routes';
import { healthRoutes } from './health.routes';
import { exportRoutes } from './exports.routes';
import { importRoutes } from './import.routes';
import { privacyRoutes } from './privacy/privacy.routes';
import { recordsRoutes } from './records';
import { logoutRoutes, sessionEndRoutes } from './session-end.routes';
import { invitationRoutes, memberRoutes } from './users.routes';
import { webhookRoutes } from './webhooks/webhooks.routes';
import type { RouteDeps, RouteModule } from './route-module';

export type { RouteDeps, RouteModule } from './route-module';

/**
 * Every area of the public API. A new area (records, import, automation) adds its module here;
 * its OpenAPI paths come with it, and the completeness test checks both agree.
 */
export function routeModules(deps: RouteDeps): RouteModule[] {
  return [
    healthRoutes(deps),
    sessionRoutes(deps),
    currentUserRoutes(deps),
    logoutRoutes(deps),
    sessionEndRoutes(deps),
    invitationRoutes(deps),
    memberRoutes(deps),
    apiKeyRoutes(deps),
    recordsRoutes(deps),
    importRoutes(deps),
    exportRoutes(deps),
    automationRoutes(deps),
    webhookRoutes(deps),
    privacyRoutes(deps),
    eventRoutes(deps),
  ];
}
