import { join } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { fieldMask, maskedFields, setFields } from './field-mask';
import { PROTO_LOADER_OPTIONS, protoDir } from './proto-files';

describe('field masks and optional fields', () => {
  it('names camelCase fields by their snake_case proto paths and back', () => {
    const mask = fieldMask(['firstName', 'billingAddress', 'email']);
    expect(mask.paths).toEqual(['first_name', 'billing_address', 'email']);
    expect(maskedFields(mask)).toEqual(['firstName', 'billingAddress', 'email']);
    expect(maskedFields(null)).toBeUndefined();
  });

  it('reads a set empty optional field as set and an unset one as absent, through proto-loader', () => {
    const root = protoDir();
    const definition = protoLoader.loadSync(join(root, 'records/v1/records.proto'), { ...PROTO_LOADER_OPTIONS, includeDirs: [root] });
    const method = definition['records.v1.RecordsService'] as unknown as Record<
      string,
      { requestSerialize(value: object): Buffer; requestDeserialize(buffer: Buffer): Record<string, unknown> }
    >;
    const update = method.UpdateContact!;
    const decoded = update.requestDeserialize(
      update.requestSerialize({ id: 'cnt_1', contact: { title: '', accountId: undefined }, updateMask: fieldMask(['title', 'accountId']) }),
    );
    const contact = decoded.contact as Record<string, unknown>;
    expect(contact.title).toBe('');
    expect('accountId' in contact).toBe(false);
    expect(setFields(contact)).toContain('title');
    expect(setFields(contact).some((key) => key.startsWith('_'))).toBe(false);
    expect(maskedFields(decoded.updateMask as { paths: string[] })).toEqual(['title', 'accountId']);
  });
});
