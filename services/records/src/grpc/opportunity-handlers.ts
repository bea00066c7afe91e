/** Opportunities over gRPC: translation only, proto ↔ the opportunities resource. */
import type { RecordsResources } from '../application/records-resources';
import { opportunityMessage, writeInput } from './proto-mapping';
import { type RpcHandlers, callerOf, pageOf, paging } from './records-rpc';
import { opportunityFiltersOf } from './list-filters';

type OpportunityRpc = 'CreateOpportunity' | 'GetOpportunity' | 'UpdateOpportunity' | 'DeleteOpportunity' | 'ListOpportunities';

export function opportunityHandlers(records: RecordsResources): RpcHandlers<OpportunityRpc> {
  return {
    CreateOpportunity: async (r, c) => ({
      opportunity: opportunityMessage(
        await records.opportunities.create(callerOf(c), writeInput(r.opportunity, r.fieldMask, r.invalidFields, 'create')),
      ),
    }),
    GetOpportunity: async (r, c) => ({ opportunity: opportunityMessage(await records.opportunities.get(callerOf(c), r.id)) }),
    UpdateOpportunity: async (r, c) => ({
      opportunity: opportunityMessage(
        await records.opportunities.update(callerOf(c), r.id, {
          ...writeInput(r.opportunity, r.updateMask, r.invalidFields, 'update'),
          expectedVersion: r.expectedVersion,
        }),
      ),
    }),
    DeleteOpportunity: async (r, c) => {
      await records.opportunities.delete(callerOf(c), r.id, r.expectedVersion);
      return {};
    },
    ListOpportunities: async (r, c) => {
      const page = await records.opportunities.list(callerOf(c), { ...opportunityFiltersOf(r), ...paging(r) });
      return { ...pageOf(page), opportunities: page.items.map(opportunityMessage) };
    },
  };
}
