/** Who may call records' privacy operations: the gateway alone, for a logged-in user (it checks the admin role). */
import type { privacyV1, ServiceCallers } from '@crm/grpc';

export const recordsPrivacyCallers: ServiceCallers<keyof privacyV1.RecordsPrivacyServiceMethods & string> = {
  gateway: { methods: 'all', actors: ['user'] },
};
