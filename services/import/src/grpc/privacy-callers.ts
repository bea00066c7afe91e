/** Who may call import's privacy operations: the gateway alone, for a logged-in user (it checks the admin role). */
import type { privacyV1, ServiceCallers } from '@crm/grpc';

export const importPrivacyCallers: ServiceCallers<keyof privacyV1.ImportPrivacyServiceMethods & string> = {
  gateway: { methods: 'all', actors: ['user'] },
};
