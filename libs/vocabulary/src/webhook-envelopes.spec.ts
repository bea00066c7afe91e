import { RECORDS_WRITTEN } from './record-event-groups';
import { webhookEventsFor, type BusMessage } from './webhook-envelopes';

function message(type: string, payload: Record<string, unknown>, id = 'msg_1'): BusMessage {
  return { id, type, occurredAt: '2026-11-24T05:00:00.000Z', payload };
}

const record = { id: 'ld_1', firstName: 'Ada' };

describe('webhookEventsFor', () => {
  it('makes lead.created of a lead_created event, in the envelope shape', () => {
    const [event] = webhookEventsFor(
      message('records.lead_created.v1', { workspaceId: 'ws_1', recordType: 'lead', recordId: 'ld_1', record }),
    );
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'lead.created',
      occurredAt: '2026-11-24T05:00:00.000Z',
      workspaceId: 'ws_1',
      data: { recordType: 'lead', record },
    });
  });

  it('gives a redelivered message the same event id', () => {
    const payload = { workspaceId: 'ws_1', recordType: 'lead', recordId: 'ld_1', record };
    expect(webhookEventsFor(message('records.lead_created.v1', payload))[0]!.id).toBe(
      webhookEventsFor(message('records.lead_created.v1', payload))[0]!.id,
    );
  });

  it('makes one contact.created per contact of a batch, each with its own id', () => {
    const events = webhookEventsFor(
      message('records.contacts_created.v1', {
        workspaceId: 'ws_1',
        events: [
          { recordType: 'contact', recordId: 'ct_1', record: { id: 'ct_1' } },
          { recordType: 'contact', recordId: 'ct_2', record: { id: 'ct_2' } },
        ],
      }),
    );
    expect(events.map((e) => [e.type, e.workspaceId])).toEqual([
      ['contact.created', 'ws_1'],
      ['contact.created', 'ws_1'],
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
  });

  it("makes of a batch write's group the events its messages would make alone, each with its own id, the same when redelivered", () => {
    const created = { workspaceId: 'ws_1', recordType: 'lead', recordId: 'ld_1', record };
    const converted = { ...created, recordId: 'ld_2', status: 'converted' };
    const group = message(RECORDS_WRITTEN, {
      workspaceId: 'ws_1',
      written: [
        { type: 'records.lead_created.v1', payload: created },
        { type: 'records.lead_status_changed.v1', payload: converted },
        { type: 'records.record_updated.v1', payload: converted },
      ],
    });
    const events = webhookEventsFor(group);
    const alone = [
      ...webhookEventsFor(message('records.lead_created.v1', created)),
      ...webhookEventsFor(message('records.lead_status_changed.v1', converted)),
      ...webhookEventsFor(message('records.record_updated.v1', converted)),
    ];
    expect(events.map(({ id: _id, ...rest }) => rest)).toEqual(alone.map(({ id: _id, ...rest }) => rest));
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
    expect(webhookEventsFor(group).map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('makes <type>.updated of a record_updated event', () => {
    const [event] = webhookEventsFor(
      message('records.record_updated.v1', { workspaceId: 'ws_1', recordType: 'opportunity', recordId: 'op_1', record }),
    );
    expect(event!.type).toBe('opportunity.updated');
  });

  it('makes lead.converted only of a status change to converted', () => {
    const change = (status: string) =>
      webhookEventsFor(
        message('records.lead_status_changed.v1', { workspaceId: 'ws_1', recordType: 'lead', recordId: 'ld_1', status, record }),
      );
    expect(change('converted').map((e) => e.type)).toEqual(['lead.converted']);
    expect(change('qualified')).toEqual([]);
  });

  it('makes opportunity.stage_changed carrying both stages', () => {
    const [event] = webhookEventsFor(
      message('records.opportunity_stage_changed.v1', {
        workspaceId: 'ws_1',
        recordType: 'opportunity',
        recordId: 'op_1',
        previousStage: 'proposal',
        stage: 'closed_won',
        record,
      }),
    );
    expect(event).toMatchObject({ type: 'opportunity.stage_changed', data: { previousStage: 'proposal', stage: 'closed_won' } });
  });

  it('makes account.created and opportunity.created of their creation events', () => {
    const created = (type: string) => webhookEventsFor(message(type, { workspaceId: 'ws_1', recordId: 'x_1', record }))[0]!.type;
    expect(created('records.account_created.v1')).toBe('account.created');
    expect(created('records.opportunity_created.v1')).toBe('opportunity.created');
  });

  it('makes <type>.deleted of a record_deleted event, with the record as it was', () => {
    const [event] = webhookEventsFor(
      message('records.record_deleted.v1', { workspaceId: 'ws_1', recordType: 'account', recordId: 'ac_1', record }),
    );
    expect(event).toMatchObject({ type: 'account.deleted', data: { recordType: 'account', record } });
  });

  it('makes a merge into one <type>.deleted per merged-away record, naming the survivor', () => {
    const events = webhookEventsFor(
      message('records.records_merged.v1', {
        workspaceId: 'ws_1',
        recordType: 'contact',
        recordId: 'ct_1',
        mergedIds: ['ct_2', 'ct_3'],
        record,
      }),
    );
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['contact.deleted', { recordType: 'contact', recordId: 'ct_2', mergedInto: 'ct_1' }],
      ['contact.deleted', { recordType: 'contact', recordId: 'ct_3', mergedInto: 'ct_1' }],
    ]);
  });

  it("makes automation.run_failed of the engine's failed-run event", () => {
    const [event] = webhookEventsFor(
      message('automation.run_failed.v1', { workspaceId: 'ws_1', executionLogId: 'log_1', ruleId: 'rul_1', reason: 'Step 1 failed' }),
    );
    expect(event).toMatchObject({
      type: 'automation.run_failed',
      workspaceId: 'ws_1',
      data: { executionLogId: 'log_1', ruleId: 'rul_1', reason: 'Step 1 failed' },
    });
  });

  it("makes import.completed and import.failed of import's ended-job events", () => {
    const ended = (type: string) => webhookEventsFor(message(type, { workspaceId: 'ws_1', jobUid: 'job_1', successCount: 3 }))[0]!;
    expect(ended('import.job_completed.v1')).toMatchObject({ type: 'import.completed', data: { jobUid: 'job_1', successCount: 3 } });
    expect(ended('import.job_failed.v1').type).toBe('import.failed');
  });

  it('ignores events webhooks do not expose', () => {
    expect(webhookEventsFor(message('records.proposal_status_changed.v1', { workspaceId: 'ws_1', record }))).toEqual([]);
  });
});
