/** Custom field definitions over gRPC (/api/settings/custom-fields/): translation only. */
import type { RecordsResources } from '../application/records-resources';
import { customFieldMessage, writeInput } from './proto-mapping';
import { type RpcHandlers, callerOf, nonEmpty, paging } from './records-rpc';

type CustomFieldRpc = 'ListCustomFields' | 'CreateCustomField' | 'GetCustomField' | 'UpdateCustomField' | 'DeleteCustomField';

export function customFieldHandlers(records: RecordsResources): RpcHandlers<CustomFieldRpc> {
  return {
    ListCustomFields: async (r, c) => {
      const page = await records.customFieldDefinitions.list(callerOf(c), nonEmpty(r.kind), paging(r));
      return { total: page.total ?? 0, fields: page.items.map(customFieldMessage) };
    },
    CreateCustomField: async (r, c) => ({
      field: customFieldMessage(
        await records.customFieldDefinitions.create(callerOf(c), writeInput(r.field, r.fieldMask, r.invalidFields, 'create')),
      ),
    }),
    GetCustomField: async (r, c) => ({ field: customFieldMessage(await records.customFieldDefinitions.get(callerOf(c), r.id)) }),
    UpdateCustomField: async (r, c) => ({
      field: customFieldMessage(
        await records.customFieldDefinitions.update(callerOf(c), r.id, writeInput(r.field, r.updateMask, r.invalidFields, 'update')),
      ),
    }),
    DeleteCustomField: async (r, c) => {
      await records.customFieldDefinitions.delete(callerOf(c), r.id);
      return {};
    },
  };
}
