/**
 * The one lower-cased text a list's `search` is matched against, stored on every record so the
 * store answers a search with a single substring test on one indexed field instead of one per
 * searched field. The parts are joined with a separator that a search may not contain, so a match
 * never spans two fields. Kept up to date by the rules that build and change documents. The
 * `custom` parts are the record's text, url and email custom field values (custom-field-values.ts).
 */
import { DomainError } from '@crm/observability';
import type { AccountDocument, ContactDocument, LeadDocument, OpportunityDocument } from './model';

/** U+001F (unit separator): never in a name, email, phone, company or website a client can search for. */
export const SEARCH_SEPARATOR = '\u001f';

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

function join(parts: string[]): string {
  return parts
    .filter((part) => part.length > 0)
    .map((part) => part.toLowerCase())
    .join(SEARCH_SEPARATOR);
}

/** Contacts are found by name ("first last", so "Ada Love" finds Ada Lovelace), email or phone. */
export function contactSearchText(c: Pick<ContactDocument, 'fullName' | 'email' | 'phone'>, custom: string[] = []): string {
  return join([c.fullName, c.email, c.phone, ...custom]);
}

/** Leads by name, email or company. */
export function leadSearchText(l: Pick<LeadDocument, 'fullName' | 'email' | 'company'>, custom: string[] = []): string {
  return join([l.fullName, l.email, l.company, ...custom]);
}

/** Accounts by company name or website. */
export function accountSearchText(a: Pick<AccountDocument, 'name' | 'website'>, custom: string[] = []): string {
  return join([a.name, a.website, ...custom]);
}

/** Opportunities by name. */
export function opportunitySearchText(o: Pick<OpportunityDocument, 'name'>, custom: string[] = []): string {
  return join([o.name, ...custom]);
}

/**
 * The needle for a search: the whole query (trimmed) as one literal, lower-cased the same way as
 * the stored text. Words are not split: "ada love" matches "Ada Lovelace" but not "Lovelace, Ada".
 * Control characters cannot be searched for (the separator is one), and are refused.
 */
export function searchNeedle(query: string): string {
  if (CONTROL_CHARACTERS.test(query)) throw DomainError.invalid('search may not contain control characters.');
  return query.toLowerCase();
}
