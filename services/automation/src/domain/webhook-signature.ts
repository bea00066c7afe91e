/**
 * The X-CRM-Signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, one
 * `v1=` per secret still valid (two during a rotation's overlap), as Stripe signs. A receiver
 * recomputes the HMAC with its secret, compares in constant time, and refuses an old `t`.
 */
import { createHmac } from 'node:crypto';

export function signatureHeader(body: string, secrets: readonly string[], unixSeconds: number): string {
  const signed = `${unixSeconds}.${body}`;
  const parts = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`);
  return [`t=${unixSeconds}`, ...parts].join(',');
}
