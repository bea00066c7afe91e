/**
 * The workspace's contact custom fields as an import sees them: a column fills one when its header
 * is the field's key or label (trimmed, case-insensitive), or when `field_mappings` maps it to
 * `customFields.<key>`. The import only places cell text; records reads each cell by the field's
 * type and reports a bad one as a row error (`customFields.<key>: …`).
 */
import { CUSTOM_FIELDS_PREFIX } from '@crm/vocabulary';

/** A column target naming a custom field: `customFields.<key>`. */
export type CustomFieldTarget = `customFields.${string}`;

export interface CustomFieldDefinition {
  key: string;
  label: string;
}

export function isCustomTarget(target: string): target is CustomFieldTarget {
  return target.startsWith(CUSTOM_FIELDS_PREFIX);
}

/** `customFields.age` → `age`. */
export function customKey(target: CustomFieldTarget): string {
  return target.slice(CUSTOM_FIELDS_PREFIX.length);
}

export function customTarget(key: string): CustomFieldTarget {
  return `${CUSTOM_FIELDS_PREFIX}${key}`;
}

function folded(text: string): string {
  return text.trim().toLowerCase();
}

/** One workspace's contact custom fields, looked up by key and by header. */
export class CustomFieldCatalog {
  private readonly byKey = new Map<string, CustomFieldDefinition>();
  private readonly byFoldedKey = new Map<string, CustomFieldDefinition>();
  private readonly byFoldedLabel = new Map<string, CustomFieldDefinition>();

  constructor(readonly definitions: readonly CustomFieldDefinition[]) {
    for (const definition of definitions) {
      this.byKey.set(definition.key, definition);
      // The first of two keys (or labels) differing only in case wins; an exact key still finds either.
      if (!this.byFoldedKey.has(folded(definition.key))) this.byFoldedKey.set(folded(definition.key), definition);
      const label = folded(definition.label);
      if (label && !this.byFoldedLabel.has(label)) this.byFoldedLabel.set(label, definition);
    }
  }

  get size(): number {
    return this.definitions.length;
  }

  /** The field with this key (exact, else case-insensitive), or undefined. */
  field(key: string): CustomFieldDefinition | undefined {
    return this.byKey.get(key) ?? this.byFoldedKey.get(folded(key));
  }

  /** The field a header names by its key (first) or its label, trimmed and case-insensitive. */
  byHeader(header: string): CustomFieldDefinition | undefined {
    const name = folded(header);
    if (!name) return undefined;
    return this.byFoldedKey.get(name) ?? this.byFoldedLabel.get(name);
  }

  /** A `customFields.<key>` target with the key as defined, or undefined when no field has it. */
  target(target: CustomFieldTarget): CustomFieldTarget | undefined {
    const definition = this.field(customKey(target));
    return definition ? customTarget(definition.key) : undefined;
  }
}

/** A workspace without custom fields (and the readers of files that have no header: vCard, photo, PDF). */
export const NO_CUSTOM_FIELDS = new CustomFieldCatalog([]);
