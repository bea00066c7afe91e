/** Who may call import (libs/grpc caller-policy.ts): the gateway alone, for users and API keys. */
import type { importV1, ServiceCallers } from '@crm/grpc';

export const importCallers: ServiceCallers<keyof importV1.ImportServiceMethods & string> = {
  gateway: { methods: 'all', actors: ['user', 'api_key'] },
};

/** Who may stream uploads to the upload endpoint: the gateway, which sets the caller headers from a verified credential. */
export const UPLOADER_IDENTITY = 'gateway';
