/**
 * MongoDB's indexed substring search. Each `textSearch` field of a document keeps, in the hidden
 * sub-document `__trigrams`, the distinct trigrams of its lowered value: a multikey array under
 * the index (workspaceId, `__trigrams.<field>`). A contains_text of three characters or more
 * becomes `$all` of the needle's trigrams (a plain find: MongoDB bounds the index scan on one of
 * them and checks the rest) and then the case-insensitive regex, which stays the answer; a shorter
 * needle has no trigram and keeps the regex alone (a scan of the workspace), as SQLite does.
 *
 * Trigrams are taken over code points after JavaScript's toLowerCase. A character whose lower case
 * changes length (`İ`) can make the regex match where the trigrams differ: such a needle can miss.
 */
import type { Change, CollectionDefinition } from '../port';

/** The hidden sub-document of trigrams; adapters strip it from every document they return. */
export const TRIGRAMS = '__trigrams';

export function trigramsPath(field: string): string {
  return `${TRIGRAMS}.${field}`;
}

/** The distinct trigrams of `text` lowered, in order of first appearance; none under three code points. */
export function trigrams(text: string): string[] {
  const chars = Array.from(text.toLowerCase());
  const found = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i += 1) found.add(chars[i]! + chars[i + 1]! + chars[i + 2]!);
  return [...found];
}

/** The fields a collection searches by substring. */
export function searchedFields(definition: CollectionDefinition<any>): ReadonlySet<string> {
  return new Set(definition.textSearch ?? []);
}

/** The `__trigrams` sub-document of a document's searched string fields, or undefined when it has none. */
export function trigramsOf(document: Record<string, unknown>, fields: ReadonlySet<string>): Record<string, string[]> | undefined {
  const grams: Record<string, string[]> = {};
  for (const field of fields) {
    const value = document[field];
    if (typeof value === 'string') grams[field] = trigrams(value);
  }
  return Object.keys(grams).length > 0 ? grams : undefined;
}

/**
 * A change with the trigrams of every searched field it sets or unsets: a string value sets them,
 * anything else (or an unset) removes them, so they never outlive the value they were taken from.
 */
export function withTrigrams(change: Change<unknown>, fields: ReadonlySet<string>): Change<unknown> {
  if (fields.size === 0) return change;
  const set: Record<string, unknown> = { ...(change.set ?? {}) };
  const unset = [...(change.unset ?? [])];
  let touched = false;
  for (const field of fields) {
    if (field in set) {
      touched = true;
      const value = set[field];
      if (typeof value === 'string') set[trigramsPath(field)] = trigrams(value);
      else unset.push(trigramsPath(field));
    } else if (unset.includes(field)) {
      touched = true;
      unset.push(trigramsPath(field));
    }
  }
  if (!touched) return change;
  return { ...change, set, ...(unset.length > 0 ? { unset } : {}) };
}
