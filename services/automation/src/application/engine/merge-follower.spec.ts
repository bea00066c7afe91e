import { newMessage } from '@crm/bus';
import { createLogger } from '@crm/observability';
import { enrollments } from '../../store/collections';
import { buildEngine, eventually, type EngineHarness } from '../../testing/automation-factory';
import { MergeFollower, RECORDS_MERGED } from './merge-follower';

const WS = 'ws_merge';
const caller = { workspaceId: WS };

const lead = (id: string, company: string) => ({ id, firstName: 'Ada', email: `${id}@example.com`, status: 'new', company });

describe('runs follow their record into a merge', () => {
  let engine: EngineHarness;
  afterEach(() => engine.close());

  it('moves runs and logs to the survivor, ends a run whose rule the survivor is already in, and ignores a redelivery', async () => {
    engine = await buildEngine({ waitScale: 1 });
    const rule = (company: string) =>
      engine.rules
        .createRule(caller, {
          name: `Rule ${company}`,
          trigger: 'lead_created',
          triggerConditions: [{ field: 'company', operator: 'eq', value: company }],
          steps: [{ type: 'wait', order: 1, config: { duration: 2, unit: 'days' } }],
        })
        .then(async (created) => (await engine.rules.setActive(caller, created.id, true), created.id));
    const [both, onlyMerged] = [await rule('Both'), await rule('Merged only')];
    // The survivor is in the first rule; the merged lead is in both.
    for (const [id, company] of [
      ['ld_survivor', 'Both'],
      ['ld_merged', 'Both'],
      ['ld_merged', 'Merged only'],
    ] as const)
      await engine.publishEvent('records.lead_created.v1', {
        workspaceId: WS,
        recordType: 'lead',
        recordId: id,
        record: lead(id, company),
      });
    const runs = () => engine.store.forWorkspace(WS).find(enrollments);
    await eventually(async () => ((await runs()).length === 3 ? true : undefined));

    const follower = new MergeFollower(engine.repositories.runs, createLogger('test', { level: 'silent' }));
    const merged = newMessage(
      RECORDS_MERGED,
      { workspaceId: WS, recordType: 'lead', recordId: 'ld_survivor', mergedIds: ['ld_merged'] },
      {
        correlationId: 'req',
      },
    );
    await follower.handle(merged);
    await follower.handle(merged);

    const after = await runs();
    expect(after.every((run) => run.enrolledRecordId === 'ld_survivor')).toBe(true);
    const inBoth = after.filter((run) => run.ruleId === both);
    expect(inBoth.map((run) => run.status).sort()).toEqual(['cancelled', 'in_progress']);
    expect(inBoth.find((run) => run.status === 'cancelled')!.reason).toBe(
      'The record was merged into ld_survivor, which is already in this rule.',
    );
    const moved = after.find((run) => run.ruleId === onlyMerged)!;
    expect(moved).toMatchObject({ status: 'in_progress', activeKey: `${onlyMerged}:ld_survivor` });
  });
});
