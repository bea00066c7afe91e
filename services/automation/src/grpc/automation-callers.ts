/** Who may call automation (libs/grpc caller-policy.ts): the gateway alone, for users and API keys. */
import type { automationV1, ServiceCallers } from '@crm/grpc';

export const automationCallers: ServiceCallers<keyof automationV1.AutomationServiceMethods & string> = {
  gateway: { methods: 'all', actors: ['user', 'api_key'] },
};
