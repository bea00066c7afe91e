/**
 * Privacy by email in the records service: the export of a person's contacts and leads with what
 * hangs off them, their erasure in one commit (after the email goes on the suppression list, so no
 * write re-creates them meanwhile), the `person.erased` announcement once every service has done
 * its part, and lifting the suppression. The gateway calls these in turn (docs/privacy.md).
 */
import { DomainError } from '@crm/observability';
import { personErased } from '../domain/events';
import type { ActivityDocument, NoteDocument, TaskDocument } from '../domain/model';
import { emailKeyOf } from '../domain/suppression';
import { PersonRepository } from '../store/person-repository';
import type { PersonAuditTrail } from './person-audit-trail';
import { CONFLICT_RETRIES, isConflict } from './record-writer';
import { recordJson } from './record-views';
import { nowOf, type RecordsContext } from './records-context';
import type { Caller } from './views';

export interface PersonExport {
  contacts: Record<string, unknown>[];
  leads: Record<string, unknown>[];
  notes: Record<string, unknown>[];
  tasks: Record<string, unknown>[];
  activities: Record<string, unknown>[];
  auditEntries: Record<string, unknown>[];
  recordIds: string[];
}

export interface RecordsErasureCounts {
  contacts: number;
  leads: number;
  notes: number;
  tasks: number;
  activities: number;
  auditEntries: number;
}

export class PersonData {
  private readonly people: PersonRepository;

  constructor(
    private readonly context: RecordsContext,
    private readonly audit: PersonAuditTrail,
  ) {
    this.people = new PersonRepository(context.repo.store);
  }

  async export(caller: Caller, email: string): Promise<PersonExport> {
    const ws = caller.workspaceId;
    const found = await this.people.byEmail(ws, requiredKey(email));
    const recordIds = [...found.contacts.map((c) => c.id), ...found.leads.map((l) => l.id)];
    const [attached, auditEntries, contactViews, leadViews] = await Promise.all([
      this.people.attached(ws, recordIds),
      this.audit.entriesAbout(ws, recordIds),
      this.context.views.contacts(ws, found.contacts, true),
      this.context.views.leads(ws, found.leads, true),
    ]);
    return {
      contacts: contactViews.map((record) => JSON.parse(recordJson({ type: 'contact', record })) as Record<string, unknown>),
      leads: leadViews.map((record) => JSON.parse(recordJson({ type: 'lead', record })) as Record<string, unknown>),
      notes: attached.notes.map(noteJson),
      tasks: attached.tasks.map(taskJson),
      activities: attached.activities.map(activityJson),
      auditEntries,
      recordIds,
    };
  }

  /**
   * Suppresses the email, then deletes the contacts and leads holding it, their notes, tasks and
   * activities, and the outbox events about them not relayed yet, and blanks their audit entries,
   * all in one commit. Opportunities the contacts were on stay, without them.
   */
  async erase(caller: Caller, email: string): Promise<{ counts: RecordsErasureCounts; recordIds: string[] }> {
    const { suppressions } = this.context;
    const ws = caller.workspaceId;
    const key = requiredKey(email);
    await suppressions.add(ws, key, nowOf(this.context));
    // An import's audit group is rewritten whole, so an erasure racing another on the same group reads it again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.eraseOnce(caller, key);
      } catch (error) {
        if (!isConflict(error) || attempt >= CONFLICT_RETRIES) throw error;
      }
    }
  }

  private async eraseOnce(caller: Caller, key: string): Promise<{ counts: RecordsErasureCounts; recordIds: string[] }> {
    const { repo, writer } = this.context;
    const ws = caller.workspaceId;
    const found = await this.people.byEmail(ws, key);
    const recordIds = [...found.contacts.map((c) => c.id), ...found.leads.map((l) => l.id)];
    const [attached, events] = await Promise.all([this.people.attached(ws, recordIds), this.people.pendingEventsAbout(ws, recordIds, key)]);
    const changes = writer.changes();
    for (const contact of found.contacts) {
      changes.delete('contact', contact.id);
      for (const o of await repo.opportunitiesWithContact(ws, contact.id))
        changes.setOpportunityContacts(
          o.id,
          o.contactIds.filter((c) => c !== contact.id),
        );
    }
    for (const lead of found.leads) changes.delete('lead', lead.id);
    changes.deleteAllAbout(recordIds).dropEvents(events.map((e) => e.id));
    const auditEntries = await this.audit.blankEntriesAbout(changes, ws, recordIds);
    // The erasure's own entries name what went, never the values.
    const now = nowOf(this.context);
    for (const contact of found.contacts)
      writer.audit(changes, caller, 'erased', 'contact', { id: contact.id, before: contact, after: null, erased: true }, now);
    for (const lead of found.leads)
      writer.audit(changes, caller, 'erased', 'lead', { id: lead.id, before: lead, after: null, erased: true }, now);
    // Not through writer.write: an erasure leaves no activity (an audit entry, blank) and no per-record event (each would
    // carry the person); `announce` sends the one event once every service has done its part.
    await repo.commit(ws, changes);
    const counts = {
      contacts: found.contacts.length,
      leads: found.leads.length,
      notes: attached.notes.length,
      tasks: attached.tasks.length,
      activities: attached.activities.length,
      auditEntries,
    };
    return { counts, recordIds };
  }

  /** The `person.erased` event, with every service's counts and nothing that names the person. */
  async announce(caller: Caller, counts: Record<string, number>): Promise<string> {
    const { writer } = this.context;
    const changes = writer.changes();
    await writer.write(caller, changes, [personErased(caller.workspaceId, counts)]);
    return changes.ops.find((op) => op.kind === 'insert')?.document.id as string;
  }

  /** True when the email was suppressed. */
  lift(caller: Caller, email: string): Promise<boolean> {
    return this.context.suppressions.lift(caller.workspaceId, requiredKey(email));
  }
}

function requiredKey(email: string): string {
  const key = emailKeyOf(typeof email === 'string' ? email : '');
  if (!key) throw DomainError.validation({ email: ['This field may not be blank.'] });
  return key;
}

function noteJson(note: NoteDocument): Record<string, unknown> {
  return { id: note.id, relatedTo: note.relatedTo, body: note.body, createdAt: note.createdAt };
}

function taskJson(task: TaskDocument): Record<string, unknown> {
  const { workspaceId: _, ...rest } = task;
  return rest;
}

function activityJson(activity: ActivityDocument): Record<string, unknown> {
  const { workspaceId: _, ...rest } = activity;
  return { mergedIds: [], ...rest };
}
