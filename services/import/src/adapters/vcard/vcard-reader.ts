/**
 * vCard files (2.1, 3.0 and 4.0; one card or many; as Apple Contacts, Google Contacts and Outlook
 * export them) read with the `vcf` package, which unfolds lines and splits structured values.
 * vCard 2.1's quoted-printable values (soft line breaks ending in `=`, bytes as `=XX`) and their
 * CHARSET (iconv-lite), text escapes and ORG's units are handled here, since `vcf` leaves them as
 * written.
 *
 * Every step is linear in the file's length: vcf's own normalisation (trimming, blank lines) runs
 * regular expressions that take seconds on 50 KB of blank lines or spaces, so it is replaced here.
 */
import iconv from 'iconv-lite';
import vCard from 'vcf';
import type { CardProperty } from '../../domain/vcard-fields';

/**
 * Joins quoted-printable soft line breaks, which are not vCard folding and would split a value.
 * Linear: a property's pieces are collected and joined once, and whether it is quoted-printable is
 * read from its first line only (re-slicing the growing line at every soft break took 13 s for
 * 800 KB of them).
 */
/**
 * vcf's normalisation done in linear time: the text trimmed, blank lines (empty or one space or
 * tab) dropped, folded lines (CRLF then a space or tab) unfolded. vcf's version halves a run of
 * blank lines rather than dropping it; its parser skips the blank lines left, so dropping them all
 * reads the same cards.
 */
export function normalizeCardText(input: string): string {
  const lines = String(input).trim().split('\r\n');
  return lines
    .filter((line) => line !== '' && line !== ' ' && line !== '\t')
    .join('\r\n')
    .replace(/\r\n[\x20\x09]/g, '');
}
vCard.normalize = normalizeCardText;

export function joinSoftBreaks(text: string): string {
  const out: string[] = [];
  let pieces: string[] = [];
  let quotedPrintable = false;
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (pieces.length === 0) quotedPrintable = /ENCODING=QUOTED-PRINTABLE/i.test(line.split(':', 1)[0]!);
    pieces.push(line);
    if (quotedPrintable && line.endsWith('=')) {
      pieces[pieces.length - 1] = line.slice(0, -1);
      continue;
    }
    out.push(pieces.length === 1 ? line : pieces.join(''));
    pieces = [];
  }
  if (pieces.length > 0) out.push(pieces.join(''));
  return out.join('\r\n');
}

function decodeQuotedPrintable(value: string, charset: string): string {
  const bytes: Buffer[] = [];
  let from = 0;
  for (let at = value.indexOf('='); at !== -1; at = value.indexOf('=', at + 1)) {
    const hex = value.slice(at + 1, at + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) continue;
    bytes.push(Buffer.from(value.slice(from, at), 'utf8'), Buffer.from([parseInt(hex, 16)]));
    from = at + 3;
    at += 2;
  }
  bytes.push(Buffer.from(value.slice(from), 'utf8'));
  const buffer = Buffer.concat(bytes);
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

/**
 * Every card of the text, in file order. Throws when the text holds no card. `checkJoined` sees the
 * text with its soft breaks joined, before it is parsed (the caller's line limit).
 */
export function readVCards(text: string, checkJoined?: (joined: string) => void): CardProperty[][] {
  if (!/BEGIN:VCARD/i.test(text)) throw new Error('no BEGIN:VCARD line');
  const joined = joinSoftBreaks(text);
  checkJoined?.(joined);
  return vCard.parse(joined).map((card) => card.toJSON()[1].map(property));
}
