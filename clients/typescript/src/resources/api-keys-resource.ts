import type { Client } from 'openapi-fetch';
import type { ApiKey, ApiKeyUsage, CreatedApiKey } from '../api-types';
import type { paths } from '../generated/crm-api';
import { answer, createHeaders, type CreateOptions } from './answer';

type CreateApiKeyBody = NonNullable<paths['/api/settings/api-keys/']['post']['requestBody']>['content']['application/json'];

/** What a key may do (`<family>:read` / `<family>:write`) and until when (ISO 8601 with its offset). */
export type ApiKeyLimits = Pick<CreateApiKeyBody, 'scopes' | 'expiresAt'>;

/** The workspace's API keys: only an admin's login may create or revoke them. */
export class ApiKeysResource {
  constructor(private readonly api: Client<paths>) {}

  /** Every active key (the list is answered whole), never the key itself. */
  async list(): Promise<ApiKey[]> {
    return (await answer(this.api.GET('/api/settings/api-keys/'))).results;
  }

  /** The answer's `key` is shown only here. Without `scopes` the key holds every scope; without `expiresAt` it never expires. */
  create(name: string, options?: CreateOptions & ApiKeyLimits): Promise<CreatedApiKey> {
    const body = {
      name,
      ...(options?.scopes ? { scopes: options.scopes } : {}),
      ...(options?.expiresAt ? { expiresAt: options.expiresAt } : {}),
    };
    return answer(this.api.POST('/api/settings/api-keys/', { body, headers: createHeaders(options) }));
  }

  async revoke(id: string): Promise<void> {
    await answer(this.api.DELETE('/api/settings/api-keys/{id}/', { params: { path: { id } } }));
  }

  usage(id: string): Promise<ApiKeyUsage> {
    return answer(this.api.GET('/api/settings/api-keys/{id}/usage/', { params: { path: { id } } }));
  }
}
