/** Leads over gRPC: translation only, proto ↔ the leads resource (conversion included). */
import type { RecordsResources } from '../application/records-resources';
import type { LeadView } from '../application/views';
import { accountMessage, contactMessage, leadMessage, opportunityMessage, optionsInput, writeInput } from './proto-mapping';
import { type RpcHandlers, callerOf, mergeRecords, pageOf, paging } from './records-rpc';
import { leadFiltersOf } from './list-filters';

type LeadRpc = 'CreateLead' | 'GetLead' | 'UpdateLead' | 'DeleteLead' | 'ListLeads' | 'ConvertLead' | 'MergeLead';

export function leadHandlers(records: RecordsResources): RpcHandlers<LeadRpc> {
  return {
    CreateLead: async (r, c) => ({
      lead: leadMessage(await records.leads.create(callerOf(c), writeInput(r.lead, r.fieldMask, r.invalidFields, 'create'))),
    }),
    GetLead: async (r, c) => ({ lead: leadMessage(await records.leads.get(callerOf(c), r.id)) }),
    UpdateLead: async (r, c) => ({
      lead: leadMessage(
        await records.leads.update(callerOf(c), r.id, {
          ...writeInput(r.lead, r.updateMask, r.invalidFields, 'update'),
          expectedVersion: r.expectedVersion,
        }),
      ),
    }),
    DeleteLead: async (r, c) => {
      await records.leads.delete(callerOf(c), r.id, r.expectedVersion);
      return {};
    },
    ListLeads: async (r, c) => {
      const page = await records.leads.list(callerOf(c), { ...leadFiltersOf(r), ...paging(r) });
      return { ...pageOf(page), leads: page.items.map(leadMessage) };
    },
    ConvertLead: async (r, c) => {
      const { leadId, invalidFields, ...options } = r;
      const input = optionsInput(options, invalidFields);
      const result = await records.leads.convert(callerOf(c), leadId, input);
      return {
        lead: leadMessage(result.lead),
        contact: contactMessage(result.contact),
        account: result.account ? accountMessage(result.account) : null,
        opportunity: result.opportunity ? opportunityMessage(result.opportunity) : null,
      };
    },
    MergeLead: async (r, c) => ({ lead: leadMessage((await mergeRecords(records, 'lead', r, c)) as LeadView) }),
  };
}
