/**
 * Who may call auth (internal identities, from their certificates; libs/grpc caller-policy.ts):
 * the gateway for every public operation on behalf of users and API keys, and for its own look-ups
 * (a workspace's plan, as `system`); the services only for
 * the directory reads they make for themselves; the operator CLI alone for the operator service.
 */
import type { authV1, ServiceCallers } from '@crm/grpc';

type AuthMethod = keyof authV1.AuthServiceMethods & string;
type OperatorMethod = keyof authV1.AuthOperatorServiceMethods & string;

const directoryReads: AuthMethod[] = ['GetUsers', 'GetWorkspace'];

export const authCallers: ServiceCallers<AuthMethod> = {
  gateway: { methods: 'all', actors: ['user', 'api_key', 'system'] },
  records: { methods: ['GetUsers'], actors: ['system'] },
  automation: { methods: directoryReads, actors: ['system'] },
  'automation-worker': { methods: directoryReads, actors: ['system'] },
};

export const operatorCallers: ServiceCallers<OperatorMethod> = {
  operator: { methods: 'all', actors: ['operator'] },
};
