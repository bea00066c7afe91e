import { CONTACTS_CREATED, eventsOfGroup, RECORDS_WRITTEN } from './record-event-groups';

const base = { id: 'evt_1', correlationId: 'c', occurredAt: '2026-11-30T00:00:00.000Z' };

describe('eventsOfGroup', () => {
  it("gives a batch write's events in order, each with an id of its own that a redelivery repeats", () => {
    const message = {
      ...base,
      type: RECORDS_WRITTEN,
      payload: {
        workspaceId: 'ws_1',
        written: [
          { type: 'records.lead_created.v1', payload: { recordId: 'lead_1' } },
          { type: 'records.record_updated.v1', payload: { recordId: 'lead_2' } },
        ],
      },
    };
    const events = eventsOfGroup(message);
    expect(events.map((e) => [e.id, e.type, (e.payload as unknown as { recordId: string }).recordId])).toEqual([
      ['evt_1:0', 'records.lead_created.v1', 'lead_1'],
      ['evt_1:1', 'records.record_updated.v1', 'lead_2'],
    ]);
    expect(eventsOfGroup(message)).toEqual(events);
    expect(events[0]!.correlationId).toBe('c');
  });

  it("gives an import chunk's contacts as contact_created events of the chunk's workspace, named by their record", () => {
    const events = eventsOfGroup({
      ...base,
      type: CONTACTS_CREATED,
      payload: { workspaceId: 'ws_1', events: [{ recordId: 'contact_1' }, { recordId: 'contact_2', workspaceId: 'ws_other' }] },
    });
    expect(events.map((e) => [e.id, e.type, e.payload])).toEqual([
      ['evt_1:contact_1', 'records.contact_created.v1', { recordId: 'contact_1', workspaceId: 'ws_1' }],
      ['evt_1:contact_2', 'records.contact_created.v1', { recordId: 'contact_2', workspaceId: 'ws_1' }],
    ]);
  });

  it('gives any other message as it is, and nothing for a group without its list', () => {
    const single = { ...base, type: 'records.lead_created.v1', payload: { recordId: 'lead_1' } };
    expect(eventsOfGroup(single)).toEqual([single]);
    expect(eventsOfGroup({ ...base, type: RECORDS_WRITTEN, payload: { workspaceId: 'ws_1' } })).toEqual([]);
    expect(eventsOfGroup({ ...base, type: CONTACTS_CREATED, payload: null })).toEqual([]);
  });
});
