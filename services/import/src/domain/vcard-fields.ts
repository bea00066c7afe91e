/**
 * A vCard as contact fields: N (family; given) or else FN for the name, the preferred EMAIL and
 * TEL (PREF, else WORK, else the first), TITLE, NOTE, and ORG (contacts have no company field, so
 * it goes into notes as `Company: …`, as for business cards).
 */
import type { ContactFields } from './contact-row';

export interface CardProperty {
  /** Lower case: `fn`, `n`, `email`, `tel`, `org`, `title`, `note`. */
  name: string;
  /** Parameter `type` values, lower case (`work`, `pref`, `internet`). */
  types: string[];
  /** The value's components (one for a plain value; N has five, ORG one per unit). */
  components: string[];
}

function preferred(properties: CardProperty[], name: string): string | undefined {
  const candidates = properties.filter((p) => p.name === name && (p.components[0] ?? '') !== '');
  const pick = candidates.find((p) => p.types.includes('pref')) ?? candidates.find((p) => p.types.includes('work')) ?? candidates[0];
  return pick?.components[0];
}

function first(properties: CardProperty[], name: string): string[] | undefined {
  return properties.find((p) => p.name === name && p.components.some((c) => c !== ''))?.components;
}

export function vCardFields(properties: CardProperty[]): ContactFields {
  const fields: ContactFields = {};
  const [family, given] = first(properties, 'n') ?? [];
  if (given || family) {
    if (given) fields.firstName = given;
    if (family) fields.lastName = family;
  } else {
    const full = first(properties, 'fn')?.join(' ').trim();
    if (full) {
      const words = full.split(/\s+/);
      fields.firstName = words[0];
      if (words.length > 1) fields.lastName = words.slice(1).join(' ');
    }
  }
  const email = preferred(properties, 'email');
  if (email) fields.email = email.replace(/^mailto:/i, '');
  const phone = preferred(properties, 'tel');
  if (phone) fields.phone = phone.replace(/^tel:/i, '');
  const title = first(properties, 'title')?.join(' ');
  if (title) fields.title = title;
  const notes: string[] = [];
  const org = first(properties, 'org')
    ?.filter((unit) => unit !== '')
    .join(', ');
  if (org) notes.push(`Company: ${org}`);
  const note = first(properties, 'note')?.join(';');
  if (note) notes.push(note);
  if (notes.length > 0) fields.notes = notes.join('\n');
  return fields;
}
