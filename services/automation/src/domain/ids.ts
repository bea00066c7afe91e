import { createHash, randomBytes } from 'node:crypto';

export const ID_PREFIX = {
  rule: 'rul_',
  template: 'tmpl_',
  log: 'log_',
  email: 'eml_',
  notification: 'ntf_',
  webhook: 'whk_',
  webhookEvent: 'evt_',
  webhookDelivery: 'whd_',
} as const;

/** A fresh identifier: the prefix, a time part (sortable) and randomness. */
export function newId(prefix: string): string {
  return `${prefix}${Date.now().toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;
}

/**
 * An identifier derived from its parts, for writes that must happen at most once: an enrollment
 * per (event, rule), an email per (enrollment, step). A redelivery computes the same id and hits
 * the unique key instead of writing twice.
 */
export function derivedId(prefix: string, ...parts: string[]): string {
  return `${prefix}${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 24)}`;
}
