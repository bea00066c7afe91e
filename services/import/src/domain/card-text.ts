/**
 * Contact fields pulled out of free text: what text recognition read on a business card, or what
 * a PDF holds. Simple rules, in this order:
 * - a labelled line (`Email: …`, `Phone: …`, `Name: …`, `Title: …`, `Company: …`) says what it is;
 * - the first email address is the email; the first run of 7 to 15 digits (with spaces, dots,
 *   dashes, brackets and a leading +) is the phone;
 * - a line naming a job (manager, director, engineer, founder, …) is the title;
 * - a line ending in a company form (Inc, Ltd, LLC, GmbH, …) is the company;
 * - the first remaining line of two to four words made of letters is the name (first word the
 *   first name, the rest the last name).
 * Contacts have no company field, so the company goes into notes as `Company: …`.
 */
import type { ContactFields } from './contact-row';

/** What may come before an email's `@`, at most 64 of them (RFC 5321's local part). */
const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const MAX_LOCAL = 64;
/** An email's domain, matched from just after its `@`: bounded runs, so bounded work per `@`. */
const DOMAIN = /[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,63}/y;
const PHONE = /\+?\(?\d[\d\s().\-/]{5,}\d/g;
const LABEL = /^\s*(e-?mail|mail|phone|tel|telephone|mobile|mob|cell|fax|name|title|position|company|organi[sz]ation|org)\s*[:.]\s*(.+)$/i;
const JOB =
  /\b(manager|director|engineer|developer|designer|founder|co-founder|ceo|cto|cfo|coo|cmo|president|vice president|vp|officer|head of|lead|consultant|analyst|specialist|architect|partner|owner|sales|marketing|account executive|representative|associate|assistant|coordinator|administrator|advisor|adviser|scientist|researcher|mathematician|physicist|editor|writer|teacher|technician|programmer|producer|supervisor|executive|secretary|intern|attorney|lawyer|accountant|professor|doctor|nurse|agent|recruiter|chief)\b/i;
const COMPANY_FORM =
  /\b(inc|ltd|llc|llp|plc|gmbh|ag|sa|sarl|sas|bv|nv|oy|ab|as|srl|spa|pty|corp|corporation|company|co|group|holdings|limited|technologies|solutions|labs|studio|partners)\.?$/i;
const NAME_WORD = /^[\p{L}][\p{L}'’.-]*$/u;

interface Labelled {
  email?: string;
  phone?: string;
  name?: string;
  title?: string;
  company?: string;
}

function labelled(lines: string[]): { found: Labelled; rest: string[] } {
  const found: Labelled = {};
  const rest: string[] = [];
  for (const line of lines) {
    const match = LABEL.exec(line);
    if (!match) {
      rest.push(line);
      continue;
    }
    const label = match[1]!.toLowerCase();
    const value = match[2]!.trim();
    if (/mail/.test(label)) found.email ??= emailIn(value);
    else if (label === 'fax') continue;
    else if (/phone|tel|mob|cell/.test(label)) found.phone ??= value;
    else if (label === 'name') found.name ??= value;
    else if (label === 'title' || label === 'position') found.title ??= value;
    else found.company ??= value;
  }
  return { found, rest };
}

/**
 * The first email address in a line. Found from each `@` outwards rather than by one pattern
 * searched from every position: `/[A-Za-z0-9._%+-]+@…/` backtracks quadratically on a long line
 * (20,000 characters without `@`: 1.9 s, ×4 per doubling); this is linear in the line's length.
 */
export function emailIn(line: string): string | undefined {
  for (let at = line.indexOf('@'); at !== -1; at = line.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < MAX_LOCAL && LOCAL_CHAR.test(line[start - 1]!)) start -= 1;
    if (start === at) continue;
    DOMAIN.lastIndex = at + 1;
    const domain = DOMAIN.exec(line);
    if (domain) return `${line.slice(start, at)}@${domain[0]}`;
  }
  return undefined;
}

function phoneIn(line: string): string | undefined {
  for (const match of line.matchAll(PHONE)) {
    const digits = match[0].replace(/\D/g, '').length;
    if (digits >= 7 && digits <= 15) return match[0].trim();
  }
  return undefined;
}

function looksLikeName(line: string): boolean {
  const words = line.split(/\s+/);
  return (
    words.length >= 2 && words.length <= 4 && words.every((word) => NAME_WORD.test(word)) && !JOB.test(line) && !COMPANY_FORM.test(line)
  );
}

/** Splits `Ada Lovelace` into first and last name. */
function nameFields(name: string): Pick<ContactFields, 'firstName' | 'lastName'> {
  const words = name.trim().split(/\s+/);
  if (words.length === 1) return { firstName: words[0] };
  return { firstName: words[0], lastName: words.slice(1).join(' ') };
}

/** The contact a piece of text describes (fields it could not find are left out). */
export function cardFields(text: string): ContactFields {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0);
  const { found, rest } = labelled(lines);
  const email = found.email ?? lines.map(emailIn).find(Boolean);
  const phone =
    found.phone ??
    rest
      .filter((line) => emailIn(line) === undefined)
      .map(phoneIn)
      .find(Boolean);
  const plain = rest.filter((line) => emailIn(line) === undefined && !phoneIn(line) && !/^(www\.|https?:)/i.test(line));
  const title = found.title ?? plain.find((line) => JOB.test(line) && !COMPANY_FORM.test(line));
  const company = found.company ?? plain.find((line) => line !== title && COMPANY_FORM.test(line));
  const name = found.name ?? plain.find((line) => line !== title && line !== company && looksLikeName(line));
  const fields: ContactFields = { ...(name ? nameFields(name) : {}) };
  if (email) fields.email = email;
  if (phone) fields.phone = phone;
  if (title) fields.title = title;
  if (company) fields.notes = `Company: ${company}`;
  return fields;
}

/**
 * The contacts a document describes: one per line holding an email when several lines do (a
 * contact list, its columns split at tabs, `|`, `;` or runs of spaces), else the whole text as one.
 */
export function documentContacts(text: string): ContactFields[] {
  const lines = text.split(/\r?\n/).filter((line) => emailIn(line) !== undefined);
  if (lines.length <= 1) return [cardFields(text)];
  return lines.map((line) => cardFields(line.split(/\t|\s{2,}|\s\|\s|;/).join('\n')));
}
