import { contextToMetadata, decideCall } from '@crm/grpc';
import { recordsCallers } from './records-callers';

const user = { workspaceId: 'ws_1', actorId: 'usr_1', actorKind: 'user' as const };
const system = { workspaceId: 'ws_1', actorId: 'automation', actorKind: 'system' as const };
const allowed = (identity: string, method: string, context: object) =>
  decideCall(recordsCallers, 'records.v1.RecordsService', method, identity, contextToMetadata(context)) === null;

describe("records' caller table", () => {
  it('lets the gateway do anything for a user or an API key, and nothing as system', () => {
    for (const method of ['DeleteContact', 'ConvertLead', 'ListContacts']) expect(allowed('gateway', method, user)).toBe(true);
    expect(allowed('gateway', 'ListContacts', { ...user, actorKind: 'api_key' })).toBe(true);
    expect(allowed('gateway', 'ListContacts', system)).toBe(false);
  });

  it("lets import write batches as the import's user, and nothing else", () => {
    for (const identity of ['import', 'import-worker']) {
      expect(allowed(identity, 'BatchCreateContacts', user)).toBe(true);
      expect(allowed(identity, 'GetContactBatch', user)).toBe(true);
      for (const method of ['DeleteContact', 'UpdateContact'])
        expect({ identity, method, allowed: allowed(identity, method, user) }).toEqual({ identity, method, allowed: false });
    }
    expect(allowed('import', 'GetSource', user)).toBe(true);
    expect(allowed('import-worker', 'GetSource', user)).toBe(false);
  });

  it("lets only import's server role list contacts (a dry-run import's email look-ups), as the user", () => {
    expect(allowed('import', 'ListContacts', user)).toBe(true);
    expect(allowed('import-worker', 'ListContacts', user)).toBe(false);
    expect(allowed('import', 'ListContacts', system)).toBe(false);
  });

  it('lets the automation workers run their steps as system, never as a user, and never delete', () => {
    for (const method of ['GetRecord', 'CreateTask', 'ListTasks', 'UpdateLead'])
      expect(allowed('automation-worker', method, system)).toBe(true);
    expect(allowed('automation-worker', 'UpdateLead', user)).toBe(false);
    expect(allowed('automation-worker', 'DeleteLead', system)).toBe(false);
    expect(allowed('automation', 'GetRecord', system)).toBe(false);
  });
});
