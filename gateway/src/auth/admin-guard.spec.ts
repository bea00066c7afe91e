import type { Request, Response } from 'express';
import type { AuthClient } from '../clients/auth-client';
import type { Caller } from '../request-context';
import { isSettingsWrite, requireAdmin } from './admin-guard';

const request = (method: string, path: string) => ({ method, path }) as Request;
const responseFor = (caller: Partial<Caller>) =>
  ({ locals: { requestId: 'req', caller: { workspaceId: 'ws_1', plan: 'starter', ...caller } } }) as unknown as Response;
const authAnswering = (role: string): AuthClient => ({ call: (async () => ({ role })) as unknown as AuthClient['call'] });

describe('the settings admin guard', () => {
  it('counts every non-read under /api/settings/ as a settings write, and nothing else', () => {
    expect(isSettingsWrite(request('POST', '/api/settings/users'))).toBe(true);
    expect(isSettingsWrite(request('PATCH', '/api/settings/users/usr_1/'))).toBe(true);
    expect(isSettingsWrite(request('DELETE', '/api/settings/webhooks/wh_1'))).toBe(true);
    expect(isSettingsWrite(request('GET', '/api/settings/users/'))).toBe(false);
    expect(isSettingsWrite(request('POST', '/api/contacts/'))).toBe(false);
    expect(isSettingsWrite(request('POST', '/api/settingsx/'))).toBe(false);
    // Express routes match these spellings too.
    expect(isSettingsWrite(request('POST', '/API/Settings/webhooks'))).toBe(true);
    expect(isSettingsWrite(request('POST', '/api//settings/users'))).toBe(true);
  });

  it('lets an admin through and refuses a member and an API key with permission_denied', async () => {
    await expect(requireAdmin(authAnswering('admin'), responseFor({ actorId: 'usr_1', actorKind: 'user' }))).resolves.toBeUndefined();
    await expect(requireAdmin(authAnswering('member'), responseFor({ actorId: 'usr_1', actorKind: 'user' }))).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    // Whatever auth would say: a key never reaches the look-up.
    await expect(requireAdmin(authAnswering('admin'), responseFor({ actorId: 'usr_sys', actorKind: 'api_key' }))).rejects.toMatchObject({
      kind: 'permission_denied',
    });
  });
});
