import * as grpc from '@grpc/grpc-js';
import { decideCall, type ServiceCallers } from './caller-policy';
import { contextToMetadata } from './caller-context';

const callers: ServiceCallers = {
  gateway: { methods: 'all', actors: ['user', 'api_key'] },
  records: { methods: ['GetUsers'], actors: ['system'] },
};

function decide(identity: string | undefined, method: string, context: Parameters<typeof contextToMetadata>[0] = {}) {
  return decideCall(callers, 'auth.v1.AuthService', method, identity, contextToMetadata(context));
}

describe('decideCall', () => {
  it('lets an identity call what its rule names, with the callers it may claim', () => {
    expect(decide('gateway', 'CreateApiKey', { workspaceId: 'w', actorId: 'u', actorKind: 'user' })).toBeNull();
    expect(decide('records', 'GetUsers', { workspaceId: 'w', actorId: 'records', actorKind: 'system' })).toBeNull();
  });

  it('lets a call that names no caller through (LogIn has none)', () => {
    expect(decide('gateway', 'LogIn')).toBeNull();
  });

  it('answers UNAUTHENTICATED without a certificate', () => {
    expect(decide(undefined, 'LogIn')?.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('answers PERMISSION_DENIED for a method outside the rule, and for an identity with no rule', () => {
    expect(decide('records', 'CreateApiKey', { workspaceId: 'w', actorKind: 'system' })?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(decide('import-worker', 'GetUsers', { workspaceId: 'w', actorKind: 'system' })?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(decide('constructor', 'GetUsers')?.code).toBe(grpc.status.PERMISSION_DENIED);
  });

  it('refuses a caller the identity may not claim, a workspace without a kind reading as system', () => {
    expect(decide('records', 'GetUsers', { workspaceId: 'w', actorId: 'u', actorKind: 'user' })?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(decide('gateway', 'GetUsers', { workspaceId: 'w' })?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(decide('gateway', 'GetUsers', { workspaceId: 'w', actorKind: 'operator' })?.code).toBe(grpc.status.PERMISSION_DENIED);
  });

  it('marks every refusal as internal and never repeats the metadata', () => {
    const refusal = decide('records', 'GetUsers', { workspaceId: 'w', actorKind: 'user', actorId: '<script>' });
    expect(refusal?.metadata?.get('x-crm-internal-refusal')).toEqual(['1']);
    expect(refusal?.details).toBe('records may not call auth.v1.AuthService/GetUsers for the caller it names.');
  });
});
