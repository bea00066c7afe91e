/**
 * Webhook subscriptions for clients: create, list, read, update, delete, rotate the secret, send a
 * test event; the delivery log and redelivery. Secrets leave this service only in create's and
 * rotate's answers. Who may call what (admins manage, members read) is the gateway's check.
 */
import { characterCount, planQuotas, apiTimestamp, systemClock, type Clock } from '@crm/vocabulary';
import { randomBytes, randomUUID } from 'node:crypto';
import type { BusMessage, MessageBus } from '@crm/bus';
import { DomainError } from '@crm/observability';
import { derivedId, ID_PREFIX, newId } from '../domain/ids';
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookDeliveryDocument,
  type WebhookEventType,
  type WebhookSubscriptionDocument,
} from '../domain/webhook-model';
import { targetUrlProblem } from '../domain/webhook-target';
import type { Page, Paging } from '../domain/paging';
import { firstAttempt } from './engine/webhook-fanout';
import { WEBHOOK_DUE_TYPE, type WebhookDuePayload } from './engine/webhook-messages';
import type { AutomationRepositories } from '../store/repositories';
import type { Caller } from './caller';

/** How long a rotated-out secret keeps signing. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60_000;
const MAX_URL_LENGTH = 2048;

export interface WebhookInput {
  url?: string;
  events?: string[];
  isActive?: boolean;
}

/** A subscription as answered; `secret` only on create and rotate. */
export type WebhookView = Omit<WebhookSubscriptionDocument, 'secrets'> & { secret?: string };

function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

function view(subscription: WebhookSubscriptionDocument, withSecret = false): WebhookView {
  const { secrets, ...rest } = subscription;
  return withSecret ? { ...rest, secret: secrets[0]!.value } : rest;
}

export interface WebhookServiceOptions {
  allowPrivateTargets: boolean;
  /** Publishes test events and redeliveries; without it (a server given no bus) those calls are unavailable. */
  bus?: MessageBus;
  clock?: Clock;
}

export class WebhookService {
  constructor(
    private readonly repositories: Pick<AutomationRepositories, 'webhooks' | 'deliveries'>,
    private readonly options: WebhookServiceOptions,
  ) {}

  private now(): Date {
    return (this.options.clock ?? systemClock)();
  }

  private validate(input: WebhookInput, creating: boolean): { url?: string; events?: WebhookEventType[] } {
    const fields: Record<string, string[]> = {};
    let url: string | undefined;
    if (input.url !== undefined || creating) {
      if (!input.url) fields.url = ['This field is required.'];
      else if (characterCount(input.url) > MAX_URL_LENGTH)
        fields.url = [`Ensure this field has no more than ${MAX_URL_LENGTH} characters.`];
      else {
        const problem = targetUrlProblem(input.url, this.options.allowPrivateTargets);
        if (problem) fields.url = [problem];
        else url = input.url;
      }
    }
    let events: WebhookEventType[] | undefined;
    if (input.events !== undefined || creating) {
      const asked = input.events ?? [];
      const unknown = asked.filter((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
      if (asked.length === 0) fields.events = ['Name at least one event type.'];
      else if (unknown.length > 0) fields.events = [`Unknown event types: ${unknown.join(', ')}.`];
      else events = [...new Set(asked)] as WebhookEventType[];
    }
    if (Object.keys(fields).length > 0) throw DomainError.validation(fields);
    return { url, events };
  }

  async create(caller: Caller, input: WebhookInput): Promise<WebhookView> {
    const { url, events } = this.validate(input, true);
    const { webhookSubscriptions: allowed } = planQuotas(caller.plan);
    if ((await this.repositories.webhooks.count(caller.workspaceId)) >= allowed)
      throw DomainError.validation({ url: [`This workspace's plan allows ${allowed} webhook subscriptions; delete one first.`] });
    const now = apiTimestamp(this.now());
    const subscription: WebhookSubscriptionDocument = {
      id: newId(ID_PREFIX.webhook),
      workspaceId: caller.workspaceId,
      url: url!,
      events: events!,
      isActive: input.isActive ?? true,
      secrets: [{ value: newSecret(), expiresAt: null }],
      failingReason: null,
      createdAt: now,
      updatedAt: now,
    };
    return view(await this.repositories.webhooks.insert(subscription), true);
  }

  async list(caller: Caller, paging: Paging): Promise<Page<WebhookView>> {
    const page = await this.repositories.webhooks.page(caller.workspaceId, paging);
    return { ...page, items: page.items.map((item) => view(item)) };
  }

  private async subscription(caller: Caller, id: string): Promise<WebhookSubscriptionDocument> {
    const found = await this.repositories.webhooks.get(caller.workspaceId, id);
    if (!found) throw DomainError.notFound();
    return found;
  }

  async get(caller: Caller, id: string): Promise<WebhookView> {
    return view(await this.subscription(caller, id));
  }

  async update(caller: Caller, id: string, input: WebhookInput): Promise<WebhookView> {
    await this.subscription(caller, id);
    const { url, events } = this.validate(input, false);
    const set: Partial<WebhookSubscriptionDocument> = { updatedAt: apiTimestamp(this.now()) };
    if (url !== undefined) set.url = url;
    if (events !== undefined) set.events = events;
    if (input.isActive !== undefined) set.isActive = input.isActive;
    const updated = await this.repositories.webhooks.update(caller.workspaceId, id, set);
    if (!updated) throw DomainError.notFound();
    return view(updated);
  }

  async delete(caller: Caller, id: string): Promise<void> {
    if (!(await this.repositories.webhooks.delete(caller.workspaceId, id))) throw DomainError.notFound();
  }

  /** A new current secret; the previous one keeps signing (a second v1=) for SECRET_OVERLAP_MS. */
  async rotateSecret(caller: Caller, id: string): Promise<string> {
    const current = await this.subscription(caller, id);
    const now = this.now().getTime();
    const secret = newSecret();
    const kept = current.secrets
      .filter((old) => old.expiresAt === null || old.expiresAt > now)
      .slice(0, 1)
      .map((old) => ({ value: old.value, expiresAt: Math.min(old.expiresAt ?? Infinity, now + SECRET_OVERLAP_MS) }));
    const updated = await this.repositories.webhooks.replaceSecrets(
      caller.workspaceId,
      id,
      [{ value: secret, expiresAt: null }, ...kept],
      apiTimestamp(new Date(now)),
      current.updatedAt,
    );
    if (!updated) throw DomainError.conflict('The subscription changed meanwhile; rotate again.');
    return secret;
  }

  private requireBus(): MessageBus {
    if (!this.options.bus) throw new DomainError('unavailable', 'Webhook deliveries cannot be queued: the service has no message bus.');
    return this.options.bus;
  }

  /** Queues a webhook.test event to the subscription, whatever its events; returns the event id. */
  async sendTest(caller: Caller, id: string, correlationId: string): Promise<string> {
    const subscription = await this.subscription(caller, id);
    const eventId = derivedId(ID_PREFIX.webhookEvent, randomUUID());
    const message = firstAttempt(
      {
        id: eventId,
        type: 'webhook.test',
        occurredAt: this.now().toISOString(),
        workspaceId: caller.workspaceId,
        data: { subscriptionId: subscription.id, message: 'A test event sent on request.' },
      },
      subscription.id,
      correlationId,
      this.now(),
    );
    await this.requireBus().publish(message);
    return eventId;
  }

  async listDeliveries(caller: Caller, subscriptionId: string, paging: Paging): Promise<Page<WebhookDeliveryDocument>> {
    await this.subscription(caller, subscriptionId);
    return this.repositories.deliveries.page(caller.workspaceId, subscriptionId, paging);
  }

  /** One more attempt of a logged delivery's event, with the same event id; no retries of its own. */
  async redeliver(caller: Caller, subscriptionId: string, deliveryId: string, correlationId: string): Promise<void> {
    await this.subscription(caller, subscriptionId);
    const delivery = await this.repositories.deliveries.get(caller.workspaceId, deliveryId);
    if (!delivery || delivery.subscriptionId !== subscriptionId) throw DomainError.notFound();
    const attempts = await this.repositories.deliveries.countAttempts(caller.workspaceId, subscriptionId, delivery.eventId);
    const message: BusMessage<WebhookDuePayload> = {
      id: derivedId('whm_', delivery.eventId, subscriptionId, 'manual', randomUUID()),
      type: WEBHOOK_DUE_TYPE,
      correlationId,
      occurredAt: this.now().toISOString(),
      payload: {
        workspaceId: caller.workspaceId,
        subscriptionId,
        envelope: delivery.envelope,
        attempt: attempts + 1,
        firstAttemptAt: null,
        manual: true,
      },
    };
    await this.requireBus().publish(message);
  }
}
