/**
 * A kind's built-in field descriptors (libs/vocabulary built-in-fields.ts) and the protos that carry
 * its records must not drift: each descriptor is a field of the kind's record message with a type
 * that holds its values (a nullable one proto3 `optional` or a message, so null travels as unset), each field
 * of that message is a descriptor (or the message's own bookkeeping), and the fields an import
 * fills are exactly the import row's and the imported contact's. A field added on one side only
 * fails here.
 */
import { join } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import {
  ACCOUNT_FIELDS,
  CONTACT_FIELDS,
  LEAD_FIELDS,
  OPPORTUNITY_FIELDS,
  fieldNames,
  type BuiltInFields,
  type BuiltInFieldType,
} from '@crm/vocabulary';
import { PROTO_LOADER_OPTIONS, protoDir } from './proto-files';

interface ProtoField {
  name: string;
  type: string;
  label: string;
  /** Set on a proto3 `optional` field: its synthetic oneof `_<name>`. */
  optional?: boolean;
}

const definitions = protoLoader.loadSync(
  ['records/v1/records.proto', 'import/v1/import.proto'].map((file) => join(protoDir(), file)),
  { ...PROTO_LOADER_OPTIONS, includeDirs: [protoDir()] },
);

function fieldsOf(message: string): Map<string, ProtoField> {
  type Loaded = { field: (ProtoField & { oneofIndex?: number })[]; oneofDecl: { name: string }[] };
  const type = (definitions[message] as { type?: Loaded } | undefined)?.type;
  if (!type) throw new Error(`no message ${message}`);
  return new Map(
    type.field.map((field) => {
      const oneof = field.oneofIndex === undefined ? undefined : type.oneofDecl[field.oneofIndex];
      return [field.name, { ...field, optional: oneof?.name === `_${field.name}` }];
    }),
  );
}

/** The proto types that hold a descriptor type's values (dates, timestamps and JSON travel as text). */
const HOLDS: Record<BuiltInFieldType, readonly string[]> = {
  id: ['TYPE_STRING'],
  text: ['TYPE_STRING'],
  url: ['TYPE_STRING'],
  email: ['TYPE_STRING'],
  choice: ['TYPE_STRING'],
  reference: ['TYPE_STRING'],
  externalId: ['TYPE_STRING'],
  date: ['TYPE_STRING'],
  timestamp: ['TYPE_STRING'],
  number: ['TYPE_DOUBLE', 'TYPE_FLOAT'],
  integer: ['TYPE_INT32', 'TYPE_INT64'],
  address: ['TYPE_MESSAGE'],
  references: ['TYPE_STRING'],
  boolean: ['TYPE_BOOL'],
  tags: ['TYPE_STRING'],
  customFields: ['TYPE_STRING'],
};

/** What a field of `fields` needs in a message that carries it; [] when it fits. */
function misfits(name: string, fields: BuiltInFields, message: string, field: ProtoField | undefined, presence: boolean): string[] {
  const descriptor = fields[name]!;
  if (!field) return [`${name}: no field in ${message}`];
  const problems: string[] = [];
  if (!HOLDS[descriptor.type].includes(field.type)) problems.push(`${name}: ${descriptor.type} in a ${field.type}`);
  if ((descriptor.type === 'tags' || descriptor.type === 'references') !== (field.label === 'LABEL_REPEATED'))
    problems.push(`${name}: ${descriptor.type} in a ${field.label} field`);
  if (presence && descriptor.nullable && !descriptor.readTime && !field.optional && field.type !== 'TYPE_MESSAGE')
    problems.push(`${name}: nullable, but not optional in ${message}`);
  return problems;
}

/** Each kind described as data: its descriptors and the message its records travel in. */
const KINDS: { kind: string; fields: BuiltInFields; message: string; bookkeeping: string[] }[] = [
  { kind: 'contact', fields: CONTACT_FIELDS, message: 'records.v1.Contact', bookkeeping: ['version'] },
  { kind: 'lead', fields: LEAD_FIELDS, message: 'records.v1.Lead', bookkeeping: ['version'] },
  { kind: 'account', fields: ACCOUNT_FIELDS, message: 'records.v1.Account', bookkeeping: ['version'] },
  { kind: 'opportunity', fields: OPPORTUNITY_FIELDS, message: 'records.v1.Opportunity', bookkeeping: ['version'] },
];

describe('built-in field descriptors and the protos', () => {
  for (const { kind, fields, message, bookkeeping } of KINDS) {
    it(`the ${kind} message carries every ${kind} field, typed to hold it, and nothing else`, () => {
      const proto = fieldsOf(message);
      const drift = Object.keys(fields).flatMap((name) => misfits(name, fields, message, proto.get(name), true));
      for (const name of proto.keys())
        if (!(name in fields) && !bookkeeping.includes(name)) drift.push(`${name}: in ${message}, no descriptor`);
      expect(drift).toEqual([]);
    });
  }

  it.each([
    ['records.v1.ContactRow', ['row', 'customFields']],
    ['import.v1.ImportedContact', ['row', 'contactId']],
  ])('%s carries exactly the contact fields an import fills', (message, own) => {
    const imported = fieldNames(CONTACT_FIELDS, (field) => field.import !== undefined);
    const proto = fieldsOf(message);
    const drift = imported.flatMap((name) => misfits(name, CONTACT_FIELDS, message, proto.get(name), false));
    for (const name of proto.keys())
      if (!imported.includes(name) && !own.includes(name)) drift.push(`${name}: in ${message}, not imported`);
    expect(drift).toEqual([]);
  });
});
