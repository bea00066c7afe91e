/**
 * The one lower-cased text a list's `search` is matched against, stored on every record so the
 * store answers a search with a single substring test on one indexed field instead of one per
 * searched field. The parts are joined with a separator that a search may not contain, so a match
 * never spans two fields. Kept up to date by the rules that build and change documents. The
 * `custom` parts are the record's text, url and email custom field values (custom-field-values.ts).
 */
import { DomainError } from '@crm/observability';
import { ACCOUNT_FIELDS, CONTACT_FIELDS, LEAD_FIELDS, OPPORTUNITY_FIELDS, type BuiltInFields } from '@crm/vocabulary';
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

/** The searchable fields other than the names, and whether the names are searchable, per descriptor list (read once). */
const searchedByList = new WeakMap<BuiltInFields, { names: boolean; others: string[] }>();

function searchedFields(fields: BuiltInFields): { names: boolean; others: string[] } {
  let searched = searchedByList.get(fields);
  if (!searched) {
    const others = Object.entries(fields)
      .filter(([name, field]) => field.searchable && name !== 'firstName' && name !== 'lastName')
      .map(([name]) => name);
    searched = { names: Boolean(fields.firstName?.searchable || fields.lastName?.searchable), others };
    searchedByList.set(fields, searched);
  }
  return searched;
}

/**
 * The searched values of a record: its name ("first last", so "Ada Love" finds Ada Lovelace) when
 * its kind's names are searchable, then each other field its kind marks `searchable`.
 */
function searchedValues(fields: BuiltInFields, record: object): string[] {
  const values = record as Record<string, unknown>;
  const { names, others } = searchedFields(fields);
  const found: string[] = names ? [String(values.fullName ?? '')] : [];
  for (const name of others) {
    const value = values[name];
    if (typeof value === 'string') found.push(value);
  }
  return found;
}

/** Whether a change makes a record's search text anew: its name, a searchable field or its custom values. */
export function changesSearchText(fields: BuiltInFields, changes: object): boolean {
  return 'fullName' in changes || 'customFields' in changes || searchedFields(fields).others.some((name) => name in changes);
}

/** Contacts are found by name, email or phone (CONTACT_FIELDS' searchable fields). */
export function contactSearchText(c: Pick<ContactDocument, 'fullName' | 'email' | 'phone'>, custom: string[] = []): string {
  return join([...searchedValues(CONTACT_FIELDS, c), ...custom]);
}

/** Leads by name, email or company. */
export function leadSearchText(l: Pick<LeadDocument, 'fullName' | 'email' | 'company'>, custom: string[] = []): string {
  return join([...searchedValues(LEAD_FIELDS, l), ...custom]);
}

/** Accounts by company name or website. */
export function accountSearchText(a: Pick<AccountDocument, 'name' | 'website'>, custom: string[] = []): string {
  return join([...searchedValues(ACCOUNT_FIELDS, a), ...custom]);
}

/** Opportunities by name. */
export function opportunitySearchText(o: Pick<OpportunityDocument, 'name'>, custom: string[] = []): string {
  return join([...searchedValues(OPPORTUNITY_FIELDS, o), ...custom]);
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
