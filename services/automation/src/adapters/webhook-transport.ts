/**
 * One POST to a webhook target. The connection goes to the address that was checked: a custom
 * `lookup` resolves the host, refuses the whole answer when any address in it is unsafe, and hands
 * the socket only the vetted addresses, so a DNS answer that changes between check and connect
 * (rebinding) cannot reach inside. The TLS name stays the URL's host (SNI and certificate check).
 * No redirects are followed (Node's http client never follows them); the answer is read up to a cap.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { addressProblem, isIpLiteral, targetUrlProblem } from '../domain/webhook-target';

export interface WebhookPostResult {
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  durationMs: number;
  /** Why it failed before or instead of an answer (refused address, timeout, connection error). */
  error: string | null;
  /** The first `maxResponseBytes` of the answer. */
  excerpt: string | null;
}

export interface WebhookTransportOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxResponseBytes: number;
  /** The resolver (tests give a fake one to play a rebinding DNS server). */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

export interface WebhookTransport {
  post(url: string, body: string, headers: Record<string, string>): Promise<WebhookPostResult>;
}

class RefusedAddressError extends Error {}

function systemResolve(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
}

/** A lookup that refuses a host any of whose addresses is unsafe, and hands the socket only the vetted ones. */
function vettedLookupOf(resolveHost: (hostname: string) => Promise<LookupAddress[]>, allowPrivate: boolean): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
        const usable = addresses.filter((entry) => family === undefined || entry.family === family);
        if (!allowPrivate) {
          const problem = usable.map((entry) => addressProblem(entry.address)).find((found) => found !== null);
          if (problem) return callback(new RefusedAddressError(`${hostname} resolves to ${problem}`), '', 4);
        }
        if (usable.length === 0) return callback(new Error(`${hostname} has no address.`), '', 4);
        if (lookupOptions.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}

export function webhookTransport(options: WebhookTransportOptions): WebhookTransport {
  const vettedLookup = vettedLookupOf(options.resolve ?? systemResolve, options.allowPrivate);
  return {
    post(url, body, headers) {
      const started = Date.now();
      const done = (result: Omit<WebhookPostResult, 'durationMs'>): WebhookPostResult => ({ ...result, durationMs: Date.now() - started });
      const refusal = targetUrlProblem(url, options.allowPrivate);
      if (refusal) return Promise.resolve(done({ status: null, error: `Refused target: ${refusal}`, excerpt: null }));
      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : http;
      return new Promise((resolve) => {
        let settled = false;
        const finish = (result: Omit<WebhookPostResult, 'durationMs'>) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(done(result));
        };
        const request = client.request(
          target,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
            // An IP literal is connected to as is (it was checked above); a name goes through the vetted lookup.
            ...(isIpLiteral(target.hostname) ? {} : { lookup: vettedLookup }),
            agent: false,
          },
          (response) => {
            const chunks: Buffer[] = [];
            let size = 0;
            const end = () => {
              const excerpt = Buffer.concat(chunks).subarray(0, options.maxResponseBytes).toString('utf8');
              const status = response.statusCode ?? null;
              const ok = status !== null && status >= 200 && status < 300;
              finish({ status, error: ok ? null : `The receiver answered ${status}.`, excerpt });
              request.destroy();
            };
            response.on('data', (chunk: Buffer) => {
              if (size >= options.maxResponseBytes) return;
              chunks.push(chunk);
              size += chunk.length;
              if (size >= options.maxResponseBytes) end();
            });
            response.on('end', end);
            response.on('error', end);
          },
        );
        const timer = setTimeout(() => {
          finish({ status: null, error: `No answer within ${options.timeoutMs} ms.`, excerpt: null });
          request.destroy();
        }, options.timeoutMs);
        request.on('error', (error) => {
          const reason = error instanceof RefusedAddressError ? `Refused target: ${error.message}` : `Could not deliver: ${error.message}`;
          finish({ status: null, error: reason, excerpt: null });
        });
        request.end(body);
      });
    },
  };
}
