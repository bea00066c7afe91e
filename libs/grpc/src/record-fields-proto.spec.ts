/**
 * The records' field descriptors (libs/vocabulary record-fields.ts) and the records proto must not
 * drift: every field a list filters, orders or groups by is carried by the kind's proto message,
 * with a type that holds its values. A descriptor added without its proto field, or a proto field
 * retyped under a descriptor, fails here.
 */
import { join } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { RECORD_FILTER_FIELDS, type FilterFieldType, type FilterRecordKind } from '@crm/vocabulary';
import { PROTO_LOADER_OPTIONS, protoDir } from './proto-files';

interface ProtoField {
  name: string;
  type: string;
  label: string;
}

const MESSAGES: Record<FilterRecordKind, string> = {
  contact: 'records.v1.Contact',
  lead: 'records.v1.Lead',
  account: 'records.v1.Account',
  opportunity: 'records.v1.Opportunity',
};

/** The proto types that hold a descriptor type's values (dates and timestamps travel as text). */
const HOLDS: Record<FilterFieldType, readonly string[]> = {
  text: ['TYPE_STRING'],
  choice: ['TYPE_STRING'],
  reference: ['TYPE_STRING'],
  date: ['TYPE_STRING'],
  timestamp: ['TYPE_STRING'],
  number: ['TYPE_DOUBLE', 'TYPE_INT32', 'TYPE_INT64', 'TYPE_FLOAT'],
  boolean: ['TYPE_BOOL'],
  tags: ['TYPE_STRING'],
};

const definitions = protoLoader.loadSync(join(protoDir(), 'records/v1/records.proto'), {
  ...PROTO_LOADER_OPTIONS,
  includeDirs: [protoDir()],
});

function fieldsOf(message: string): Map<string, ProtoField> {
  const type = (definitions[message] as { type?: { field: ProtoField[] } } | undefined)?.type;
  if (!type) throw new Error(`records.proto has no message ${message}`);
  return new Map(type.field.map((field) => [field.name, field]));
}

describe('record field descriptors and the records proto', () => {
  for (const kind of Object.keys(MESSAGES) as FilterRecordKind[]) {
    it(`carry every ${kind} field a list names, with a type that holds it`, () => {
      const proto = fieldsOf(MESSAGES[kind]);
      const drift: string[] = [];
      for (const [name, descriptor] of Object.entries(RECORD_FILTER_FIELDS[kind])) {
        // Fields of the linked account are the account message's (checked under account).
        if (descriptor.related) continue;
        const field = proto.get(name);
        if (!field) {
          drift.push(`${name}: no field in ${MESSAGES[kind]}`);
          continue;
        }
        if (!HOLDS[descriptor.type].includes(field.type)) drift.push(`${name}: ${descriptor.type} in a ${field.type}`);
        if ((descriptor.type === 'tags') !== (field.label === 'LABEL_REPEATED'))
          drift.push(`${name}: ${descriptor.type} in a ${field.label} field`);
      }
      expect(drift).toEqual([]);
    });
  }
});
