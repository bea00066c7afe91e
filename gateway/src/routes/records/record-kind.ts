/** What the routes every record kind shares know of a kind: its names, paths, fields and filters. */
import type { JsonSchema } from '../../openapi/operation';
import type { AnswerTable } from '../field-table';
import type { RecordMessage } from './record-shape';
import type { RecordsMethod } from './records-call';
import type { WriteShape } from './write-body';

/** A record kind's rpc name part (`Contact`: CreateContact, GetContact, ...). */
export type KindName = 'Contact' | 'Lead' | 'Account' | 'Opportunity';
/** Its plural (`Contacts`: ListContacts). */
export type KindPluralName = 'Contacts' | 'Leads' | 'Accounts' | 'Opportunities';

export interface QueryParameter<F extends string = string> {
  name: F;
  description: string;
  schema: JsonSchema;
}

export interface RecordKind<F extends string> {
  /** `contact`: the message key in requests and responses. */
  singular: Lowercase<KindName>;
  /** `contacts`: the list response's key. */
  plural: Lowercase<KindPluralName>;
  /** `Contact`: rpc names are `Create${Name}` and so on; also the OpenAPI operation ids. */
  name: KindName;
  /** `Contacts`, `Opportunities`: the list rpc is `List${PluralName}`. */
  pluralName: KindPluralName;
  /** `a contact`, `an account`: for summaries. */
  aName: string;
  path: string;
  tag: string;
  idPrefix: string;
  write: WriteShape;
  /** Its answers: every row in the full record, the `listed` ones in list items. */
  answer: AnswerTable<RecordMessage>;
  filters: readonly QueryParameter<F>[];
  /** The list request from the filters read off the query string. */
  listRequest(filters: Partial<Record<F, string>>): Record<string, unknown>;
  createDescription: string;
  updateDescription: string;
  listDescription: string;
  deleteDescription: string;
  /** The kind's merge rpc, when its records merge (POST {path}/{id}/merge/). */
  merge?: Extract<RecordsMethod, `Merge${string}`>;
}
