import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locationFromEnv } from './open-store';

describe('locationFromEnv', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crm-location-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('puts the service in its own SQLite file under the data folder, creating the folder', () => {
    const dataDir = join(root, 'nested', 'data');
    expect(locationFromEnv({ service: 'records', dataDir })).toEqual({ kind: 'sqlite', file: join(dataDir, 'records.db') });
    expect(existsSync(dataDir)).toBe(true);
  });

  it('uses MongoDB with a database per service when a URL is set', () => {
    expect(locationFromEnv({ service: 'auth', mongoUrl: 'mongodb://db:27017/?replicaSet=rs0', dataDir: root })).toEqual({
      kind: 'mongo',
      url: 'mongodb://db:27017/?replicaSet=rs0',
      database: 'crm_auth',
    });
    expect(locationFromEnv({ service: 'auth', mongoUrl: 'mongodb://db', mongoDatabase: 'custom' })).toMatchObject({ database: 'custom' });
  });

  it('treats an empty URL as unset', () => {
    expect(locationFromEnv({ service: 'import', mongoUrl: '', dataDir: root })).toMatchObject({ kind: 'sqlite' });
  });

  it('refuses a service name that could escape the data folder', () => {
    expect(() => locationFromEnv({ service: '../etc', dataDir: root })).toThrow();
  });
});
