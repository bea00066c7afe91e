/**
 * Who may call records (internal identities, from their certificates; libs/grpc caller-policy.ts):
 * the gateway for every public operation; import for the batch writes (and the source look-up of
 * an upload, and the email look-ups of a synchronous dry-run import) on behalf of the user or API
 * key that started the import, as the gateway named them;
 * the automation workers for the reads and writes of their steps, as the system actor.
 */
import type { recordsV1, ServiceCallers } from '@crm/grpc';

type RecordsMethod = keyof recordsV1.RecordsServiceMethods & string;

const importWrites: RecordsMethod[] = ['BatchCreateContacts', 'GetContactBatch'];
/** Exports: the query checked when the export is asked for, the snapshot read by the worker. */
const exportReads: RecordsMethod[] = ['QueryRecords', 'StreamRecords'];

export const recordsCallers: ServiceCallers<RecordsMethod> = {
  gateway: { methods: 'all', actors: ['user', 'api_key'] },
  // The server role also runs the worker role in one-process mode (npm start).
  import: { methods: ['GetSource', 'ListContacts', 'ListCustomFields', ...importWrites, ...exportReads], actors: ['user', 'api_key'] },
  'import-worker': { methods: ['ListCustomFields', ...importWrites, ...exportReads], actors: ['user', 'api_key'] },
  'automation-worker': {
    methods: ['GetRecord', 'CreateTask', 'ListTasks', 'UpdateLead', 'UpdateContact', 'UpdateOpportunity'],
    actors: ['system'],
  },
};
