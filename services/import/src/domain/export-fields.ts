/** Which columns an export may have: the kind's list item fields and `customFields.<key>`. */
import { CUSTOM_FIELD_NAME_PATTERN, RECORD_LIST_ITEM_FIELDS, type FilterRecordKind } from '@crm/vocabulary';

const CUSTOM_FIELD = new RegExp(CUSTOM_FIELD_NAME_PATTERN);

/**
 * The columns of an export: `asked` checked against the list item's fields, or by default every
 * list item field, then every custom field of the kind (`customFields.<key>`). Unknown names
 * come back as errors, one message each; a repeated name is an error too.
 */
export function exportColumns(
  kind: FilterRecordKind,
  asked: readonly string[] | undefined,
  customKeys: readonly string[] = [],
): { fields: string[]; errors: string[] } {
  const listed = RECORD_LIST_ITEM_FIELDS[kind];
  const custom = customKeys.map((key) => `customFields.${key}`);
  if (!asked || asked.length === 0) return { fields: [...listed, ...custom], errors: [] };
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const field of asked) {
    if (seen.has(field)) errors.push(`"${field}" is named twice.`);
    else if (!listed.includes(field) && !(CUSTOM_FIELD.test(field) && custom.includes(field)))
      errors.push(`"${field}" is not a field of the ${kind} list (${listed.join(', ')}).`);
    seen.add(field);
  }
  return { fields: [...asked], errors };
}
