import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const packageDir = resolve(__dirname, '..');

describe('the crm-platform-sdk package', () => {
  it("compiles with its own tsconfig: web platform types only, no Node's (the root build and typecheck do not use it)", () => {
    const tsc = spawnSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(packageDir, 'tsconfig.json'), '--noEmit'],
      {
        encoding: 'utf8',
      },
    );
    expect({ status: tsc.status, output: tsc.stdout + tsc.stderr }).toEqual({ status: 0, output: '' });
  });

  it('depends on the openapi-fetch range the repository tests it with', () => {
    const own = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    const repository = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(own.dependencies['openapi-fetch']).toBe(repository.devDependencies['openapi-fetch']);
  });
});
