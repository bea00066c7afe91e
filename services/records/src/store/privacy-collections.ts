/**
 * What the privacy operations keep in the records store: the suppression list (keyed hashes of
 * erased emails, domain/suppression.ts) and, when the operator gives no PRIVACY_HASH_KEY, the
 * hashing key made on first use.
 */
import { defineCollection } from '@crm/store';

export interface SuppressionDocument {
  /** `sup_` + the email's keyed hash within the workspace. */
  id: string;
  workspaceId: string;
  createdAt: string;
}

export const suppressions = defineCollection<SuppressionDocument>({ name: 'suppressions', scope: 'workspace' });

export interface PrivacyKeyDocument {
  id: string;
  /** 32 random bytes, base64. */
  key: string;
  createdAt: string;
}

export const privacyKeys = defineCollection<PrivacyKeyDocument>({ name: 'privacy_keys', scope: 'global' });

export const privacyCollections = [suppressions, privacyKeys];
