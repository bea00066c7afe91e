/**
 * The suppression list's rule: an erased email may not come back until an admin lifts it. The list
 * holds keyed hashes (HMAC-SHA256 of the workspace id and the lower-cased email), never the email,
 * so a copy of the records database alone cannot be read back into a list of erased people
 * (docs/privacy.md says why a key and not a salt).
 */
import { createHmac } from 'node:crypto';
import { DomainError } from '@crm/observability';

export const SUPPRESSED_EMAIL = "This email address was erased and is on the workspace's suppression list; an admin can lift it.";

/** How an email is compared: trimmed and lower-cased. */
export function emailKeyOf(email: string): string {
  return email.trim().toLowerCase();
}

/** The list entry's id for an email in a workspace. */
export function suppressionHash(key: Buffer, workspaceId: string, email: string): string {
  return `sup_${createHmac('sha256', key)
    .update(`${workspaceId}\n${emailKeyOf(email)}`)
    .digest('hex')}`;
}

export function suppressedEmail(): DomainError {
  return DomainError.validation({ email: [SUPPRESSED_EMAIL] });
}
