import { contextToMetadata, decideCall } from '@crm/grpc';
import { authCallers, operatorCallers } from './auth-callers';

const user = { workspaceId: 'ws_1', actorId: 'usr_1', actorKind: 'user' as const };
const allowed = (identity: string, method: string, context = {}) =>
  decideCall(authCallers, 'auth.v1.AuthService', method, identity, contextToMetadata(context)) === null;

describe("auth's caller table", () => {
  it('lets only the gateway act for users and API keys', () => {
    expect(allowed('gateway', 'CreateApiKey', user)).toBe(true);
    expect(allowed('gateway', 'ListApiKeys', { ...user, actorKind: 'api_key' })).toBe(true);
    for (const identity of ['records', 'automation', 'automation-worker', 'import', 'import-worker', 'operator'])
      expect({ identity, allowed: allowed(identity, 'GetUsers', user) }).toEqual({ identity, allowed: false });
  });

  it('lets only the gateway log in, verify API keys and read signing keys', () => {
    for (const method of ['LogIn', 'VerifyApiKey', 'GetSigningKeys', 'SignUp']) {
      expect(allowed('gateway', method)).toBe(true);
      for (const identity of ['records', 'automation-worker', 'import-worker'])
        expect({ identity, method, allowed: allowed(identity, method) }).toEqual({ identity, method, allowed: false });
    }
  });

  it('lets the services read users and workspaces for themselves, as system', () => {
    const system = { workspaceId: 'ws_1', actorId: 'records', actorKind: 'system' as const };
    expect(allowed('records', 'GetUsers', system)).toBe(true);
    expect(allowed('records', 'GetWorkspace', system)).toBe(false);
    for (const identity of ['automation', 'automation-worker']) {
      expect(allowed(identity, 'GetUsers', system)).toBe(true);
      expect(allowed(identity, 'GetWorkspace', system)).toBe(true);
      expect(allowed(identity, 'RevokeApiKey', system)).toBe(false);
    }
  });

  it('opens the operator service to the operator CLI alone', () => {
    const operator = { actorId: 'operator', actorKind: 'operator' as const };
    const operatorAllowed = (identity: string) =>
      decideCall(operatorCallers, 'auth.v1.AuthOperatorService', 'ChangePlan', identity, contextToMetadata(operator)) === null;
    expect(operatorAllowed('operator')).toBe(true);
    for (const identity of ['gateway', 'auth', 'records']) expect(operatorAllowed(identity)).toBe(false);
    expect(allowed('operator', 'GetUsers', operator)).toBe(false);
  });
});
