/** Accounts over gRPC: translation only, proto ↔ the accounts resource. */
import type { RecordsResources } from '../application/records-resources';
import type { AccountView } from '../application/views';
import { accountMessage, writeInput } from './proto-mapping';
import { type RpcHandlers, callerOf, mergeRecords, pageOf, paging } from './records-rpc';
import { accountFiltersOf } from './list-filters';

type AccountRpc = 'CreateAccount' | 'GetAccount' | 'UpdateAccount' | 'DeleteAccount' | 'ListAccounts' | 'MergeAccount';

export function accountHandlers(records: RecordsResources): RpcHandlers<AccountRpc> {
  return {
    CreateAccount: async (r, c) => ({
      account: accountMessage(await records.accounts.create(callerOf(c), writeInput(r.account, r.fieldMask, r.invalidFields, 'create'))),
    }),
    GetAccount: async (r, c) => ({ account: accountMessage(await records.accounts.get(callerOf(c), r.id)) }),
    UpdateAccount: async (r, c) => ({
      account: accountMessage(
        await records.accounts.update(callerOf(c), r.id, {
          ...writeInput(r.account, r.updateMask, r.invalidFields, 'update'),
          expectedVersion: r.expectedVersion,
        }),
      ),
    }),
    DeleteAccount: async (r, c) => {
      await records.accounts.delete(callerOf(c), r.id, r.expectedVersion);
      return {};
    },
    ListAccounts: async (r, c) => {
      const page = await records.accounts.list(callerOf(c), { ...accountFiltersOf(r), ...paging(r) });
      return { ...pageOf(page), accounts: page.items.map(accountMessage) };
    },
    MergeAccount: async (r, c) => ({ account: accountMessage((await mergeRecords(records, 'account', r, c)) as AccountView) }),
  };
}
