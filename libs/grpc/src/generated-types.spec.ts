import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const script = join(__dirname, '../../../scripts/gen-proto-types.js');

describe('generated proto types', () => {
  it('match the .proto files (run npm run gen:proto after editing proto/)', () => {
    const output = execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(output).toContain('proto types up to date');
  });
});
