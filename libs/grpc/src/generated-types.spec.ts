import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { CallRequest, recordsV1 } from './index';

const script = join(__dirname, '../../../scripts/gen-proto-types.js');

describe('generated proto types', () => {
  it('match the .proto files (run npm run gen:proto after editing proto/)', () => {
    const output = execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    expect(output).toContain('proto types up to date');
  });
});

describe('generated service method maps', () => {
  it('name only the service rpcs, so a call by another name does not compile', () => {
    const methods: (keyof recordsV1.RecordsServiceMethods)[] = ['CreateContact', 'ListCustomFields'];
    // @ts-expect-error CreateContacts is no rpc of the records service (the map has no index signature)
    const misspelt: keyof recordsV1.RecordsServiceMethods = 'CreateContacts';
    expect([...methods, misspelt]).toHaveLength(3);
  });
});

describe('a call request', () => {
  it('may leave out any field, nested messages too, but names only fields the message has', () => {
    const batch: CallRequest<recordsV1.RecordsServiceMethods, 'BatchWriteRecords'> = {
      recordType: 'contact',
      records: [{ contact: { email: 'ada@example.com' }, fieldMask: { paths: ['email'] } }],
    };
    const misspelt: CallRequest<recordsV1.RecordsServiceMethods, 'BatchWriteRecords'> = {
      // @ts-expect-error contacts is no field of a batch record (it is contact)
      records: [{ contacts: { email: 'ada@example.com' } }],
    };
    expect([batch, misspelt]).toHaveLength(2);
  });
});
