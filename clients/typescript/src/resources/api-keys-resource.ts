import type { Client } from 'openapi-fetch';
import type { ApiKey, ApiKeyUsage, CreatedApiKey } from '../api-types';
import type { paths } from '../generated/crm-api';
import { answer, createHeaders, type CreateOptions } from './answer';

/** The workspace's API keys: only an admin's login may create or revoke them. */
export class ApiKeysResource {
  constructor(private readonly api: Client<paths>) {}

  /** Every active key (the list is answered whole), never the key itself. */
  async list(): Promise<ApiKey[]> {
    return (await answer(this.api.GET('/api/settings/api-keys/'))).results;
  }

  /** The answer's `key` is shown only here. */
  create(name: string, options?: CreateOptions): Promise<CreatedApiKey> {
    return answer(this.api.POST('/api/settings/api-keys/', { body: { name }, headers: createHeaders(options) }));
  }

  async revoke(id: string): Promise<void> {
    await answer(this.api.DELETE('/api/settings/api-keys/{id}/', { params: { path: { id } } }));
  }

  usage(id: string): Promise<ApiKeyUsage> {
    return answer(this.api.GET('/api/settings/api-keys/{id}/usage/', { params: { path: { id } } }));
  }
}
