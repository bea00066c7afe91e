/** A custom field definition for specs: every attribute at its default unless given. */
import type { CustomFieldDefinition } from '@crm/vocabulary';

const AT = '2026-11-28T00:00:00Z';

export function customField(
  kind: CustomFieldDefinition['kind'],
  key: string,
  type: CustomFieldDefinition['type'],
  extra: Partial<CustomFieldDefinition> = {},
): CustomFieldDefinition {
  return {
    id: `fld_${kind}_${key}`,
    kind,
    key,
    label: key,
    type,
    options: [],
    required: false,
    unique: false,
    description: '',
    createdAt: AT,
    updatedAt: AT,
    ...extra,
  };
}
