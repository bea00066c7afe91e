import { CrmClient, type ContactListItem } from '../src';

export interface ContactStore {
  upsert(contact: ContactListItem): Promise<void>;
}

/** Copies the contacts changed since `since` (a previous run's answer) into `store`; returns the next checkpoint. */
export async function syncContacts(crm: CrmClient, store: ContactStore, since: string | null): Promise<string | null> {
  let checkpoint = since;
  // Most recently changed first, by cursor: a change made during the walk is picked up next run.
  for await (const contact of crm.contacts.list({ ordering: '-updatedAt', limit: 100 })) {
    if (since !== null && contact.updatedAt < since) break; // older than the last run: done
    await store.upsert(contact); // the checkpoint's own second comes again: upserts are idempotent
    if (checkpoint === null || contact.updatedAt > checkpoint) checkpoint = contact.updatedAt;
  }
  return checkpoint;
}
