/**
 * Custom fields' storage: the workspace's definitions, and one claim per value a unique custom
 * field holds (domain/custom-field-values.ts), written in the record's commit: a second record
 * claiming the same value fails that commit as a duplicate, whichever replica makes it. The values
 * themselves live in each record's `customFields` object: no schema change per field.
 */
import { defineCollection, type StoredDocument } from '@crm/store';
import { CUSTOM_FIELD_KINDS, CUSTOM_FIELD_LIMITS, type CustomFieldDefinition } from '@crm/vocabulary';
import type { Caller } from '../domain/caller';

/** A deletion under way (custom-fields-service.ts): the definition is hidden while its values are cleared. */
export interface FieldDeletion {
  at: string;
  /** When it began, in ms: the time part of its audit entries' ids (custom-fields-service.ts). */
  startedMs: number;
  /** Who deleted it, with the request's id: the audit entries of the values it clears name them. */
  caller: Caller;
}

export type CustomFieldDocument = CustomFieldDefinition & { workspaceId: string; deleting?: FieldDeletion };

export const customFieldDefinitions = defineCollection<CustomFieldDocument>({
  name: 'custom_fields',
  scope: 'workspace',
  // Every record view reads them: kept few by custom-field-rules.ts (those being deleted besides).
  maxPerWorkspace: CUSTOM_FIELD_LIMITS.perKind * CUSTOM_FIELD_KINDS.length,
  fields: { kind: 'string', key: 'string', createdAt: 'string' },
  indexes: [{ fields: ['kind', 'key'], unique: true }, { fields: ['createdAt'] }],
});

export interface CustomFieldClaimDocument extends StoredDocument {
  workspaceId: string;
  kind: string;
  key: string;
  recordId: string;
}

export const customFieldClaims = defineCollection<CustomFieldClaimDocument>({
  name: 'custom_field_claims',
  scope: 'workspace',
  fields: { kind: 'string', key: 'string', recordId: 'string' },
  // A field's deletion drops its claims; a record's deletion drops the record's.
  indexes: [{ fields: ['kind', 'key'] }, { fields: ['recordId'] }],
});

export const customFieldCollections = [customFieldDefinitions, customFieldClaims];
