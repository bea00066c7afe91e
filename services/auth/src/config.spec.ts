import { ConfigError, loadConfig } from '@crm/config';
import { authConfigSchema } from './config';

describe('auth config', () => {
  it('has the documented defaults', () => {
    expect(loadConfig(authConfigSchema, { INTERNAL_TLS_DIR: '/etc/crm/internal-tls' })).toMatchObject({
      GRPC_HOST: '0.0.0.0',
      GRPC_PORT: 50051,
      MONGO_DATABASE: 'crm_auth',
      CRM_DATA_DIR: './data',
      ACCESS_TOKEN_TTL_SECONDS: 3600,
      REFRESH_TOKEN_TTL_DAYS: 30,
    });
  });

  it('needs the internal TLS folder unless internal TLS is explicitly off', () => {
    expect(() => loadConfig(authConfigSchema, {})).toThrow(/INTERNAL_TLS_DIR: required/);
    expect(loadConfig(authConfigSchema, { INTERNAL_TLS: 'off' })).toMatchObject({ INTERNAL_TLS: 'off', INTERNAL_TLS_DIR: undefined });
    expect(() => loadConfig(authConfigSchema, { INTERNAL_TLS: 'no' })).toThrow(/INTERNAL_TLS/);
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig(authConfigSchema, { GRPC_PORT: 'abc', AUTH_JWT_PRIVATE_KEY: 'not a key', MONGO_URL: 'http://x' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(
        expect.arrayContaining(['GRPC_PORT', 'AUTH_JWT_PRIVATE_KEY', 'MONGO_URL']),
      );
    }
  });
});
