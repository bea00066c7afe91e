/**
 * The reads of a privacy export or erasure: a person's contacts and leads by email (compared
 * lower-cased), what hangs off them, and the outbox events about them not relayed yet.
 */
import type { DocumentStore, ScopedStore } from '@crm/store';
import type { ActivityDocument, ContactDocument, LeadDocument, NoteDocument, TaskDocument } from '../domain/model';
import { activities, contacts, leads, notes, outbox, tasks, type OutboxDocument } from './collections';

export interface PersonRecords {
  contacts: ContactDocument[];
  leads: LeadDocument[];
}

export interface AttachedRecords {
  notes: NoteDocument[];
  tasks: TaskDocument[];
  activities: ActivityDocument[];
}

/** Ids asked per `in` condition, so no query binds more values than the store takes at once. */
const IDS_PER_QUERY = 500;

export class PersonRepository {
  constructor(private readonly store: DocumentStore) {}

  private in(workspaceId: string): ScopedStore {
    return this.store.forWorkspace(workspaceId);
  }

  /**
   * Contacts by their lower-cased `emailKey` (indexed); leads keep their email as written, so they
   * are found through the search text (which holds it lower-cased, text-indexed) and checked exactly.
   */
  async byEmail(workspaceId: string, emailKey: string): Promise<PersonRecords> {
    const scoped = this.in(workspaceId);
    const [byKey, candidates] = await Promise.all([
      scoped.find(contacts, { where: [{ field: 'emailKey', op: 'eq', value: emailKey }] }),
      scoped.find(leads, { where: [{ field: 'searchText', op: 'contains_text', value: emailKey }] }),
    ]);
    return { contacts: byKey, leads: candidates.filter((lead) => lead.email.toLowerCase() === emailKey) };
  }

  /** The notes and tasks about these records, and their activities. */
  async attached(workspaceId: string, recordIds: string[]): Promise<AttachedRecords> {
    const found: AttachedRecords = { notes: [], tasks: [], activities: [] };
    const scoped = this.in(workspaceId);
    for (let i = 0; i < recordIds.length; i += IDS_PER_QUERY) {
      const values = recordIds.slice(i, i + IDS_PER_QUERY);
      const [n, t, a] = await Promise.all([
        scoped.find(notes, { where: [{ field: 'relatedTo', op: 'in', values }] }),
        scoped.find(tasks, { where: [{ field: 'relatedTo', op: 'in', values }] }),
        scoped.find(activities, { where: [{ field: 'recordId', op: 'in', values }] }),
      ]);
      found.notes.push(...n);
      found.tasks.push(...t);
      found.activities.push(...a);
    }
    return found;
  }

  /**
   * Events not relayed yet whose payload names one of these records or the email: dropped by the
   * erasure, so the person's data never reaches the bus after it. The outbox holds only what the
   * relay has not sent (seconds' worth), so reading it whole is cheap.
   */
  async pendingEventsAbout(workspaceId: string, recordIds: string[], emailKey: string): Promise<OutboxDocument[]> {
    const pending = await this.in(workspaceId).find(outbox, {});
    const ids = new Set(recordIds);
    return pending.filter((event) => {
      const text = JSON.stringify(event.payload).toLowerCase();
      return (emailKey !== '' && text.includes(emailKey)) || [...ids].some((id) => text.includes(id));
    });
  }
}
