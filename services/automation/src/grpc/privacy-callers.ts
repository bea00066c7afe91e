/** Who may call automation's privacy operations: the gateway alone, for a logged-in user (it checks the admin role). */
import type { privacyV1, ServiceCallers } from '@crm/grpc';

export const automationPrivacyCallers: ServiceCallers<keyof privacyV1.AutomationPrivacyServiceMethods & string> = {
  gateway: { methods: 'all', actors: ['user'] },
};
