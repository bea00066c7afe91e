/** What the export suites share: making many contacts at once, waiting for an export, reading its file. */
import type { ApiClient } from '../support/api-client';
import { multipartBody } from '../support/multipart';

/** Cells of an RFC 4180 file (quoted fields, doubled quotes, CRLF or LF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** Up to 500 contacts in one call (the synchronous import), `row(i)` giving each one's cells. */
export async function importContacts(api: ApiClient, count: number, row: (i: number) => Record<string, string>): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => row(i));
  const header = Object.keys(rows[0]!);
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const csv = [header.join(','), ...rows.map((r) => header.map((h) => quote(r[h] ?? '')).join(','))].join('\n');
  const { body, contentType } = multipartBody([{ name: 'file', filename: 'contacts.csv', contentType: 'text/csv', content: csv }]);
  const answer = await api.call('POST', '/api/contacts/import/', {
    rawBody: body,
    headers: { 'content-type': contentType },
    timeoutMs: 60_000,
  });
  if (answer.status !== 200 || answer.body.created.length !== count)
    throw new Error(`import: ${answer.status} ${answer.text.slice(0, 300)}`);
}

export async function startExport(api: ApiClient, body: Record<string, unknown>): Promise<any> {
  const answer = await api.post('/api/exports/', body);
  if (answer.status !== 202) throw new Error(`export: ${answer.status} ${answer.text}`);
  return answer.body;
}

/** The export once it has ended (complete or failed). */
export async function ended(api: ApiClient, id: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api.get(`/api/exports/${id}/`);
    if (answer.status !== 200) throw new Error(`GET export: ${answer.status} ${answer.text}`);
    if (answer.body.status === 'complete' || answer.body.status === 'failed') return answer.body;
    if (Date.now() > deadline) throw new Error(`export ${id} still ${answer.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function downloaded(api: ApiClient, id: string): Promise<{ contentType: string; text: string }> {
  const answer = await api.get(`/api/exports/${id}/download/`);
  if (answer.status !== 200) throw new Error(`download: ${answer.status} ${answer.text}`);
  return { contentType: answer.headers['content-type'] ?? '', text: answer.text };
}

/** Every record of a list, page by page through `next`. */
export async function listed(api: ApiClient, path: string): Promise<any[]> {
  const items: any[] = [];
  let next: string | null = path;
  while (next) {
    const answer: { status: number; body: any; text: string } = await api.get(next);
    if (answer.status !== 200) throw new Error(`GET ${next}: ${answer.status} ${answer.text}`);
    items.push(...answer.body.results);
    next = answer.body.next ? (answer.body.next as string).replace(/^https:\/\/[^/]+/, '') : null;
  }
  return items;
}
