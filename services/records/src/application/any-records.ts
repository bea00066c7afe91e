/** One record of any kind by its kind's name: automation's conditions and a merge's answer. */
import { DomainError } from '@crm/observability';
import type { AccountsService } from './accounts-service';
import type { ContactsService } from './contacts-service';
import type { LeadsService } from './leads-service';
import type { OpportunitiesService } from './opportunities-service';
import type { AnyRecordView, Caller } from './views';

export class AnyRecords {
  constructor(
    private readonly kinds: {
      contacts: ContactsService;
      leads: LeadsService;
      accounts: AccountsService;
      opportunities: OpportunitiesService;
    },
  ) {}

  async get(caller: Caller, type: string, id: string): Promise<AnyRecordView> {
    switch (type) {
      case 'contact':
        return { type, record: await this.kinds.contacts.get(caller, id) };
      case 'lead':
        return { type, record: await this.kinds.leads.get(caller, id) };
      case 'account':
        return { type, record: await this.kinds.accounts.get(caller, id) };
      case 'opportunity':
        return { type, record: await this.kinds.opportunities.get(caller, id) };
      default:
        throw DomainError.invalid('record_type must be contact, lead, account or opportunity.');
    }
  }
}
