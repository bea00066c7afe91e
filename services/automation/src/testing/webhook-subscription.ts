import type { WebhookSubscriptionDocument } from '../domain/webhook-model';

/** An active subscription of workspace ws_1 to lead.created with one secret, for unit specs. */
export function subscriptionDocument(overrides: Partial<WebhookSubscriptionDocument> = {}): WebhookSubscriptionDocument {
  return {
    id: 'whk_1',
    workspaceId: 'ws_1',
    url: 'https://hooks.example.com/crm',
    events: ['lead.created'],
    isActive: true,
    secrets: [{ value: 'whsec_current', expiresAt: null }],
    failingReason: null,
    createdAt: '2026-11-24T05:00:00Z',
    updatedAt: '2026-11-24T05:00:00Z',
    ...overrides,
  };
}
