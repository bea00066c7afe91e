import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { keepAlive, openStore, type DocumentStore } from '@crm/store';
import { CUSTOM_FIELD_KINDS, type CustomFieldDefinition } from '@crm/vocabulary';
import { recordsCollections } from './collections';
import { customFieldDefinitions } from './custom-field-collections';
import { CustomFieldRepository } from './custom-field-repository';

function definition(kind: CustomFieldDefinition['kind'], n: number, type: CustomFieldDefinition['type'] = 'text'): CustomFieldDefinition {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return {
    id: `fld_${kind}_${String(n).padStart(3, '0')}`,
    kind,
    key: `field${n}`,
    label: `Field ${n}`,
    type,
    options: type === 'multiselect' ? ['a', 'b'] : [],
    required: false,
    unique: false,
    description: '',
    createdAt: at,
    updatedAt: at,
  };
}

describe('CustomFieldRepository.everyDefinitionAtStart', () => {
  let dir: string;
  let file: string;
  let store: DocumentStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'custom-field-index-'));
    file = join(dir, 'records.db');
    store = await openStore({ location: { kind: 'sqlite', file }, collections: recordsCollections });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives every definition stored without one its slot, across workspaces and pages, and changes nothing on a repeat', async () => {
    // Written as a version before slots left them: definitions, no slots.
    const workspaces = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
    for (const workspaceId of workspaces) {
      for (const kind of CUSTOM_FIELD_KINDS) {
        for (let n = 0; n < 21; n++) {
          await store.forWorkspace(workspaceId).insert(customFieldDefinitions, {
            ...definition(kind, n, n === 20 ? 'multiselect' : 'text'),
            id: `fld_${workspaceId}_${kind}_${n}`,
            workspaceId,
          });
        }
      }
    }
    const repository = new CustomFieldRepository(store);
    expect((await repository.everyDefinitionAtStart()).checked).toBe(6 * 4 * 21);
    const slots = () => {
      const db = keepAlive(new Database(file, { readonly: true }));
      try {
        return keepAlive(db.prepare('SELECT count(*) FROM __dynamic_slots')).pluck().get();
      } finally {
        db.close();
      }
    };
    expect(slots()).toBe(6 * 4 * 20); // a multiselect is matched by membership: no slot
    await repository.everyDefinitionAtStart();
    expect(slots()).toBe(6 * 4 * 20);
  });
});
