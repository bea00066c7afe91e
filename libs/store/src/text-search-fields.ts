import { CollectionDefinition } from './port';
import { assertFieldName } from './validate-query';

/** The fields a collection searches through a text index (see CollectionDefinition.textSearch); each must be a declared string field. */
export function textSearchFields(definition: CollectionDefinition<any>): string[] {
  const fields = definition.textSearch ?? [];
  for (const field of fields) {
    assertFieldName(field);
    if (definition.fields?.[field] !== 'string') {
      throw new Error(`${definition.name}: textSearch field ${field} must be a declared string field`);
    }
  }
  return fields;
}
