import createClient, { type Client } from 'openapi-fetch';
import type { CurrentUser } from './api-types';
import { CrmTransport, type Credentials, type FetchLike, type RetryOptions, type Tokens } from './crm-transport';
import type { paths } from './generated/crm-api';
import { answer } from './resources/answer';
import { AccountsResource } from './resources/accounts-resource';
import { ApiKeysResource } from './resources/api-keys-resource';
import { RulesResource, TemplatesResource } from './resources/automations-resource';
import { ContactsResource } from './resources/contacts-resource';
import { ImportsResource } from './resources/imports-resource';
import { LeadsResource } from './resources/leads-resource';
import { OpportunitiesResource } from './resources/opportunities-resource';
import { ActivitiesResource, TasksResource } from './resources/timeline-resource';
import { WebhooksResource } from './resources/webhooks-resource';

export interface CrmClientOptions {
  /** The gateway's origin, e.g. `https://crm.example.com` (paths start with /api/). */
  baseUrl: string;
  /** `{ apiKey }` for server-to-server use, `{ tokens }` for a user's session (refreshed as needed); none to call `auth.login` later. */
  credentials?: Credentials;
  /** Called with every new token pair (login, refresh): store the refresh token, the previous one stops working. */
  onTokens?: (tokens: Tokens) => void | Promise<void>;
  /** Replaces the global fetch, e.g. to trust a private CA: `(request) => fetch(request, { dispatcher })`. */
  fetch?: FetchLike;
  retry?: RetryOptions;
  /** For tests: how the client waits between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

/** Who is calling, and the session's own calls. */
export class AuthResource {
  constructor(
    private readonly api: Client<paths>,
    private readonly transport: CrmTransport,
  ) {}

  /** Starts a session; later calls use (and refresh) its tokens. */
  async login(email: string, password: string): Promise<Tokens & { user: CurrentUser }> {
    const session = await answer(this.api.POST('/api/auth/login/', { body: { email, password } }));
    await this.transport.signedIn({ access: session.access, refresh: session.refresh });
    return session;
  }

  /** The user the credential belongs to (an API key's workspace system user). */
  me(): Promise<CurrentUser> {
    return answer(this.api.GET('/api/auth/me/'));
  }

  /** Ends this session: its refresh token stops working (the access token lives out its lifetime). */
  async logout(): Promise<void> {
    const tokens = this.transport.tokens;
    if (tokens) await answer(this.api.POST('/api/auth/logout/', { body: { refresh: tokens.refresh } }));
    this.transport.signedOut();
  }

  /** The session's current pair, when it is a user's session. */
  get tokens(): Tokens | undefined {
    return this.transport.tokens;
  }
}

/**
 * The CRM's REST API, typed from the OpenAPI document the gateway serves. Every call throws
 * CrmValidationError (422 with fields) or CrmApiError for an answer outside 2xx.
 */
export class CrmClient {
  /** The openapi-fetch client underneath, for operations without a method here. */
  readonly api: Client<paths>;
  readonly auth: AuthResource;
  readonly contacts: ContactsResource;
  readonly leads: LeadsResource;
  readonly accounts: AccountsResource;
  readonly opportunities: OpportunitiesResource;
  readonly automations: { rules: RulesResource; templates: TemplatesResource };
  readonly webhooks: WebhooksResource;
  readonly apiKeys: ApiKeysResource;
  readonly imports: ImportsResource;
  readonly tasks: TasksResource;
  readonly activities: ActivitiesResource;

  constructor(options: CrmClientOptions) {
    const transport = new CrmTransport(options);
    this.api = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: transport.fetch });
    this.auth = new AuthResource(this.api, transport);
    this.contacts = new ContactsResource(this.api);
    this.leads = new LeadsResource(this.api);
    this.accounts = new AccountsResource(this.api);
    this.opportunities = new OpportunitiesResource(this.api);
    this.automations = { rules: new RulesResource(this.api), templates: new TemplatesResource(this.api) };
    this.webhooks = new WebhooksResource(this.api);
    this.apiKeys = new ApiKeysResource(this.api);
    this.imports = new ImportsResource(this.api);
    this.tasks = new TasksResource(this.api);
    this.activities = new ActivitiesResource(this.api);
  }

  /** A client with a new session: `await CrmClient.login({ baseUrl, email, password, onTokens })`. */
  static async login(options: Omit<CrmClientOptions, 'credentials'> & { email: string; password: string }): Promise<CrmClient> {
    const { email, password, ...rest } = options;
    const client = new CrmClient(rest);
    await client.auth.login(email, password);
    return client;
  }
}
