/**
 * vCard files (2.1, 3.0 and 4.0; one card or many; as Apple Contacts, Google Contacts and Outlook
 * export them) read with the `vcf` package, which unfolds lines and splits structured values.
 * vCard 2.1's quoted-printable values (soft line breaks ending in `=`, bytes as `=XX`) and their
 * CHARSET (iconv-lite), text escapes and ORG's units are handled here, since `vcf` leaves them as
 * written.
 */
import iconv from 'iconv-lite';
import vCard from 'vcf';
import type { CardProperty } from '../domain/vcard-fields';

/** Joins quoted-printable soft line breaks, which are not vCard folding and would split a value. */
function joinSoftBreaks(text: string): string {
  const lines = text.split(/\r\n|\n|\r/);
  const out: string[] = [];
  let carrying = false;
  for (const line of lines) {
    if (carrying) out[out.length - 1] = out[out.length - 1]!.slice(0, -1) + line;
    else out.push(line);
    const last = out[out.length - 1]!;
    carrying = /ENCODING=QUOTED-PRINTABLE/i.test(last.split(':')[0] ?? '') && last.endsWith('=');
  }
  return out.join('\r\n');
}

function decodeQuotedPrintable(value: string, charset: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const hex = value.slice(i + 1, i + 3);
    if (value[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(value[i]!, 'utf8'));
  }
  const buffer = Buffer.from(bytes);
  return iconv.encodingExists(charset) ? iconv.decode(buffer, charset) : buffer.toString('utf8');
}

/** vCard text escapes (`\n`, `\,`, `\;`, `\\`), which vcf leaves as written. */
function unescapeText(value: string): string {
  return value.replace(/\\([nN,;\\])/g, (_match, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
}

function listOf(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(',')).map((v) => v.toLowerCase());
}

function property([name, params, , value]: vCard.JCardProperty): CardProperty {
  const raw = value === null ? [] : Array.isArray(value) ? value : [value];
  const encoding = String(params.encoding ?? '').toLowerCase();
  const charset = String(params.charset ?? 'utf-8');
  let components = encoding === 'quoted-printable' ? raw.map((v) => decodeQuotedPrintable(v, charset)) : raw;
  // vcf splits N and ADR but leaves ORG whole; its units are separated by unescaped semicolons.
  if (name.toLowerCase() === 'org' && components.length === 1) components = components[0]!.split(/(?<!\\);/);
  // vCard 2.1 writes types bare (`TEL;WORK;VOICE`), which vcf reads as parameters named `type`;
  // vCard 4.0 marks the preferred value with a PREF parameter rather than a type.
  const types = listOf(params.type);
  if (params.pref !== undefined) types.push('pref');
  return { name: name.toLowerCase(), types, components: components.map((c) => unescapeText(c).trim()) };
}

/** Every card of the text, in file order. Throws when the text holds no card. */
export function readVCards(text: string): CardProperty[][] {
  if (!/BEGIN:VCARD/i.test(text)) throw new Error('no BEGIN:VCARD line');
  return vCard.parse(joinSoftBreaks(text)).map((card) => card.toJSON()[1].map(property));
}
