import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLogger } from '@crm/observability';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { createApp } from '../../gateway/src/app';
import { gatewayConfig } from '../../gateway/src/config';
import { MemoryCounter } from '../../gateway/src/testing/memory-counter';

const root = resolve(__dirname, '../..');

describe('the generated API types (clients/typescript/src/generated/crm-api.ts)', () => {
  it('are what openapi-typescript makes of the current OpenAPI document (npm run build && npm run gen:api-types after a change)', () => {
    const logger = createLogger('api-types-test', { level: 'silent' });
    const gateway = createApp({
      config: gatewayConfig({ PUBLIC_BASE_URL: undefined }),
      logger,
      auth: { call: () => Promise.reject(new Error('no auth service in this test')) },
      rateLimitCounter: new MemoryCounter(),
      invalidation: new LocalInvalidationChannel(logger),
    });
    const dir = mkdtempSync(join(tmpdir(), 'crm-api-types-'));
    try {
      const documentFile = join(dir, 'openapi.json');
      writeFileSync(documentFile, JSON.stringify(gateway.openApiDocument()));
      // openapi-typescript is loaded as ES modules, which jest's CommonJS runtime cannot: a child process checks.
      const check = spawnSync(process.execPath, ['scripts/gen-api-types.js', '--check', '--document', documentFile], {
        cwd: root,
        encoding: 'utf8',
      });
      expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
