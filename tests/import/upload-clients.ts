/**
 * The CSV upload as real clients send it: the curl command line (which sends `Expect: 100-continue`
 * for bodies over 1 MB) and Node's own fetch, with a Content-Length or chunked.
 */
import { execFile } from 'node:child_process';
import { Agent } from 'undici';
import { START } from './import-support';

export interface CurlAnswer {
  status: number;
  body: any;
  /** curl's -v trace: `> ` lines were sent, `< ` lines received. */
  trace: string;
  /** Bytes of the request body curl sent. */
  uploaded: number;
  exitCode: number;
}

export interface CurlOptions {
  caFile: string;
  token: string;
  file: string;
  /** true: send `Expect: 100-continue` whatever the size; false: send none (`-H 'Expect:'`). */
  expectContinue: boolean;
  chunked?: boolean;
}

export function curlUpload(baseUrl: string, options: CurlOptions): Promise<CurlAnswer> {
  const args = ['--cacert', options.caFile, '-H', `Authorization: Bearer ${options.token}`];
  // curl sends the body anyway after 1 s without an answer; a long wait keeps a busy machine from
  // passing off a body sent on that timer as one the gateway asked for, or the other way round.
  if (options.expectContinue) args.push('-H', 'Expect: 100-continue', '--expect100-timeout', '60');
  else args.push('-H', 'Expect:');
  if (options.chunked) args.push('-H', 'Transfer-Encoding: chunked');
  args.push('-F', `file=@${options.file};type=text/csv`, `${baseUrl}${START}`);
  return curl(args);
}

/** Runs curl with `args` (plus -v and the status and upload size written out) and reads its answer. */
export function curl(args: string[]): Promise<CurlAnswer> {
  const all = ['-sS', '-v', '-w', '\n%{http_code} %{size_upload}', ...args];
  return new Promise((resolve) => {
    execFile('curl', all, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const lines = stdout.split('\n');
      const [status, uploaded] = (lines.pop() ?? '').split(' ').map(Number);
      const text = lines.join('\n');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: kept as text for the assertion message
      }
      const exitCode = typeof error?.code === 'number' ? error.code : 0;
      resolve({ status: status ?? 0, body, trace: stderr, uploaded: uploaded ?? 0, exitCode });
    });
  });
}

export interface FetchUpload {
  status: number;
  body: any;
}

/** Node's global fetch, sending the form with a Content-Length or, with `chunked`, as a stream. */
export async function fetchUpload(
  baseUrl: string,
  dispatcher: Agent,
  token: string,
  content: Buffer,
  chunked: boolean,
): Promise<FetchUpload> {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/csv' }), 'people.csv');
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: FormData | ReadableStream<Uint8Array> = form;
  if (chunked) {
    const encoded = new Response(form);
    headers['content-type'] = encoded.headers.get('content-type')!;
    body = encoded.body!;
  }
  // Node's own fetch, with an undici Agent of the package's version: the two RequestInit types differ only in name.
  const init = { method: 'POST', headers, body, dispatcher, duplex: 'half' } as unknown as RequestInit;
  const response = await fetch(`${baseUrl}${START}`, init);
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}
