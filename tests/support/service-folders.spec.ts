/**
 * Every service's src/ is laid out in the one folder vocabulary of services/folders.json (which
 * `npm run lint` also reads for what each folder may import): a folder outside it, or a source file
 * loose at the root beside the entry files, fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const FOLDERS: Record<string, { may: string[]; types?: string[] }> = JSON.parse(readFileSync(join(ROOT, 'services/folders.json'), 'utf8'));
const ROOT_FILES = new Set(['main.ts', 'index.ts', 'config.ts', 'config.spec.ts', 'cli.ts']);
const services = readdirSync(join(ROOT, 'services')).filter((name) => statSync(join(ROOT, 'services', name)).isDirectory());

describe('service folders', () => {
  it.each(services)('%s keeps its sources in the shared folders', (service) => {
    const src = join(ROOT, 'services', service, 'src');
    const entries = readdirSync(src, { withFileTypes: true });
    const strayFolders = entries.filter((e) => e.isDirectory() && !(e.name in FOLDERS)).map((e) => e.name);
    const strayFiles = entries.filter((e) => e.isFile() && !ROOT_FILES.has(e.name)).map((e) => e.name);
    expect({ strayFolders, strayFiles }).toEqual({ strayFolders: [], strayFiles: [] });
  });

  it('names only folders of the vocabulary as what a folder may import', () => {
    for (const { may, types = [] } of Object.values(FOLDERS))
      for (const folder of [...may, ...types]) expect(folder === '*' || folder in FOLDERS).toBe(true);
  });
});
