import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureOperatorToken, operatorTokenPath } from './operator-token';

describe('operator token', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'crm-op-')), 'data');
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('is generated once, kept with mode 0600 and reused on later starts', async () => {
    const first = await ensureOperatorToken(undefined, dir);
    expect(first.length).toBeGreaterThanOrEqual(43);
    expect(statSync(operatorTokenPath(dir)).mode & 0o777).toBe(0o600);
    expect(readFileSync(operatorTokenPath(dir), 'utf8').trim()).toBe(first);
    await expect(ensureOperatorToken(undefined, dir)).resolves.toBe(first);
  });

  it('is the configured one when AUTH_OPERATOR_TOKEN is set', async () => {
    await expect(ensureOperatorToken('configured-token-123', dir)).resolves.toBe('configured-token-123');
  });
});
