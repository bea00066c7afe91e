import { fieldMask, GrpcClient, recordsV1 } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import { startRecordsService, type RunningRecordsService } from '../index';
import { recordsConfigSchema } from '../config';
import { logger, USERS } from '../testing/records-factory';
import { StaticUserDirectory } from '../adapters/user-directory';

const context = { workspaceId: 'ws_a', actorId: 'usr_ada', actorKind: 'user' as const, requestId: 'req-grpc' };

describe('RecordsService over gRPC', () => {
  let running: RunningRecordsService;
  let client: GrpcClient<recordsV1.RecordsServiceMethods>;

  beforeAll(async () => {
    const config = recordsConfigSchema.parse({ GRPC_HOST: '127.0.0.1', GRPC_PORT: '0', LOG_LEVEL: 'silent', INTERNAL_TLS: 'off' });
    running = await startRecordsService(config, {
      logger,
      storeLocation: { kind: 'sqlite', file: ':memory:' },
      users: new StaticUserDirectory(USERS),
    });
    client = new GrpcClient(recordsV1.protoPath, recordsV1.RecordsServiceName, `127.0.0.1:${running.port}`, null);
  });

  afterAll(async () => {
    client.close();
    await running.stop();
  });

  it('creates, patches with presence and nulls, and reads back a contact', async () => {
    const { contact } = await client.call(
      'CreateContact',
      {
        contact: { firstName: 'Ada', email: 'ada@x.io', assignedTo: 'usr_ada' } as recordsV1.Contact,
        fieldMask: fieldMask(['firstName', 'email', 'assignedTo']),
      },
      context,
    );
    expect(contact).toMatchObject({ stage: 'new', assignedTo: 'usr_ada', assignedToName: 'Ada Lovelace' });
    expect(contact).not.toHaveProperty('accountId');
    expect(contact).not.toHaveProperty('source');
    const { contact: updated } = await client.call(
      'UpdateContact',
      {
        id: contact!.id,
        contact: { title: 'CTO', stage: 'ignored' } as recordsV1.Contact,
        // assignedTo: in the mask and unset in the message, as a client's JSON null.
        updateMask: fieldMask(['title', 'createdAt', 'assignedTo']),
      },
      context,
    );
    expect(updated).toMatchObject({ title: 'CTO', stage: 'new' });
    expect(updated).not.toHaveProperty('assignedTo');
    const list = await client.call('ListContacts', { search: 'ada' }, context);
    expect(list.total).toBe(1);
  });

  it('answers 422 field errors, merged with the gateway’s, through metadata', async () => {
    const error = await client
      .call(
        'CreateLead',
        {
          lead: { email: 'bad' } as recordsV1.Lead,
          fieldMask: fieldMask(['email']),
          invalidFields: [{ field: 'leadScore', messages: ['A valid integer is required.'] }],
        },
        context,
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation_failed');
    expect(Object.keys((error as DomainError).fields ?? {}).sort()).toEqual(['email', 'firstName', 'leadScore']);
  });

  it('refuses a field in the mask left unset when the field may not be null', async () => {
    const { contact } = await client.call(
      'CreateContact',
      { contact: { firstName: 'Nil', email: 'nil@x.io' } as recordsV1.Contact, fieldMask: fieldMask(['firstName', 'email']) },
      context,
    );
    const error = await client
      .call('UpdateContact', { id: contact!.id, contact: {} as recordsV1.Contact, updateMask: fieldMask(['email', 'notes']) }, context)
      .catch((e: unknown) => e);
    expect((error as DomainError).kind).toBe('validation_failed');
    expect((error as DomainError).fields).toEqual({ email: ['This field may not be null.'] });
  });

  it('converts a lead and answers null for what was not made', async () => {
    const { lead } = await client.call(
      'CreateLead',
      { lead: { firstName: 'L', email: 'l@x.io', company: 'Co' } as recordsV1.Lead },
      context,
    );
    const result = await client.call('ConvertLead', { leadId: lead!.id, createAccount: true }, context);
    expect(result.account).toMatchObject({ name: 'Co', contactCount: 1 });
    expect(result.opportunity).toBeNull();
    expect(result.lead).toMatchObject({ status: 'converted', convertedContactId: result.contact!.id });
    expect(result.lead).not.toHaveProperty('assignedTo');
    const again = await client.call('ConvertLead', { leadId: lead!.id }, context).catch((e: unknown) => e);
    expect((again as DomainError).kind).toBe('invalid_argument');
    expect((again as DomainError).message).toBe('Lead is already converted.');
    const record = await client.call('GetRecord', { recordType: 'lead', id: lead!.id }, context);
    expect(JSON.parse(record.fieldsJson)).toMatchObject({ status: 'converted', convertedContactId: result.contact!.id });
  });

  it("answers not found for another workspace's record", async () => {
    const { account } = await client.call('CreateAccount', { account: { name: 'Acme' } as recordsV1.Account }, context);
    const error = await client.call('GetAccount', { id: account!.id }, { ...context, workspaceId: 'ws_b' }).catch((e: unknown) => e);
    expect((error as DomainError).kind).toBe('not_found');
  });
});
