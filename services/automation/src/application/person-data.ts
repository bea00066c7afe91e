/**
 * Privacy in the automation service: the outbound emails and webhook delivery attempts about a
 * person (to their address, about their records, or with a payload naming either), exported, or
 * blanked in place (ids, statuses and times stay; values become "[erased]"). Notifications about
 * their records lose their message too (they are not part of the bundle). Logs are walked a page
 * at a time; a delivery's payload is matched as text, so an attempt of any event type is found.
 */
import { apiTimestamp } from '@crm/vocabulary';
import type { EmailDocument } from '../domain/model';
import type { WebhookDeliveryDocument } from '../domain/webhook-model';
import type { PersonDataRepository } from '../store/person-data-repository';

export const ERASED = '[erased]';

export interface PersonMatch {
  emailKey: string;
  recordIds: Set<string>;
}

export class PersonData {
  constructor(private readonly repo: PersonDataRepository) {}

  async export(workspaceId: string, email: string, recordIds: string[]): Promise<{ emails: object[]; webhookDeliveries: object[] }> {
    const person = matchOf(email, recordIds);
    const found = { emails: [] as object[], webhookDeliveries: [] as object[] };
    await this.repo.eachEmail(workspaceId, async (page) => {
      for (const e of page) if (emailIsAbout(e, person)) found.emails.push(emailJson(e));
    });
    await this.repo.eachDelivery(workspaceId, async (page) => {
      for (const d of page) if (deliveryIsAbout(d, person)) found.webhookDeliveries.push(deliveryJson(d));
    });
    return found;
  }

  async erase(workspaceId: string, email: string, recordIds: string[]): Promise<{ emails: number; webhookDeliveries: number }> {
    const person = matchOf(email, recordIds);
    const at = apiTimestamp();
    let emails = 0;
    let webhookDeliveries = 0;
    await this.repo.eachEmail(workspaceId, async (page) => {
      for (const e of page.filter((e) => emailIsAbout(e, person))) {
        await this.repo.blankEmail(workspaceId, e.id, ERASED);
        emails++;
      }
    });
    await this.repo.eachDelivery(workspaceId, async (page) => {
      for (const d of page.filter((d) => deliveryIsAbout(d, person))) {
        await this.repo.blankDelivery(workspaceId, d, ERASED, at);
        webhookDeliveries++;
      }
    });
    for (const n of await this.repo.notificationsAbout(workspaceId, [...person.recordIds]))
      if (n.message !== ERASED) await this.repo.blankNotification(workspaceId, n.id, ERASED);
    return { emails, webhookDeliveries };
  }
}

function matchOf(email: string, recordIds: string[]): PersonMatch {
  return { emailKey: (email ?? '').trim().toLowerCase(), recordIds: new Set(recordIds) };
}

function emailIsAbout(email: EmailDocument, person: PersonMatch): boolean {
  if (email.to === ERASED) return false;
  return (person.emailKey !== '' && email.to.trim().toLowerCase() === person.emailKey) || person.recordIds.has(email.relatedTo);
}

function deliveryIsAbout(delivery: WebhookDeliveryDocument, person: PersonMatch): boolean {
  if (delivery.erasedAt) return false;
  const text = `${JSON.stringify(delivery.envelope.data)}\n${delivery.responseExcerpt ?? ''}`.toLowerCase();
  if (person.emailKey !== '' && text.includes(person.emailKey)) return true;
  for (const id of person.recordIds) if (text.includes(id)) return true;
  return false;
}

function emailJson(e: EmailDocument): object {
  const { workspaceId: _, ...rest } = e;
  return rest;
}

function deliveryJson(d: WebhookDeliveryDocument): object {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    type: d.type,
    attempt: d.attempt,
    status: d.status,
    responseStatus: d.responseStatus,
    durationMs: d.durationMs,
    error: d.error,
    responseExcerpt: d.responseExcerpt,
    createdAt: d.createdAt,
    payload: d.envelope,
  };
}
