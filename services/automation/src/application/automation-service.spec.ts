import { DomainError } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import { BUILT_IN_TEMPLATES } from '../domain/gallery';
import { automationCollections } from '../store/collections';
import { AutomationService } from './automation-service';

const mine = { workspaceId: 'ws_mine' };
const theirs = { workspaceId: 'ws_theirs' };
const steps = [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }];

describe('the automation service', () => {
  let store: DocumentStore;
  let service: AutomationService;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
    service = new AutomationService(store);
  });
  afterEach(() => store.close());

  it('creates rules inactive with a rul_ id', async () => {
    const rule = await service.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    expect(rule).toMatchObject({ isActive: false, enrolledCount: 0, installedFromTemplateId: null });
    expect(rule.id).toMatch(/^rul_/);
  });

  it('updates any subset and validates the result as a whole', async () => {
    const rule = await service.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    expect((await service.updateRule(mine, rule.id, { name: 'Renamed' }, ['name'])).name).toBe('Renamed');
    await expect(
      service.updateRule(
        mine,
        rule.id,
        { trigger: 'contact_created', triggerConditions: [{ field: 'company', operator: 'eq', value: 'x' }] },
        ['trigger', 'triggerConditions'],
      ),
    ).rejects.toThrow(DomainError);
  });

  it("hides another workspace's rules and custom templates", async () => {
    const rule = await service.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    const template = await service.saveAsTemplate(mine, rule.id, { name: 'My template' });
    expect(template).toMatchObject({ category: 'custom', isBuiltIn: false, installCount: 0 });
    await expect(service.getRule(theirs, rule.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(service.getTemplate(theirs, template.id)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await service.listTemplates(theirs, {})).map((t) => t.id)).not.toContain(template.id);
    expect((await service.listTemplates(mine, { category: 'custom' })).map((t) => t.id)).toEqual([template.id]);
  });

  it('filters the gallery by category, trigger and search', async () => {
    const support = await service.listTemplates(mine, { category: 'support' });
    expect(support.length).toBeGreaterThan(0);
    expect(support.every((t) => t.category === 'support')).toBe(true);
    const proposal = await service.listTemplates(mine, { trigger: 'proposal_status_changed' });
    expect(proposal.map((t) => t.id)).toEqual(['tmpl_proposal_follow_up']);
    expect((await service.listTemplates(mine, { search: 'ROUND-ROBIN' })).map((t) => t.id)).toEqual(['tmpl_lead_round_robin']);
    expect(await service.listTemplates(mine, {})).toHaveLength(BUILT_IN_TEMPLATES.length);
  });

  it('installs an independent copy and counts installs atomically', async () => {
    const installs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        service.installTemplate(i % 2 ? mine : theirs, 'tmpl_new_lead_welcome', i === 0 ? 'Named' : undefined),
      ),
    );
    expect(installs[0]).toMatchObject({ name: 'Named', installedFromTemplateId: 'tmpl_new_lead_welcome', isActive: false });
    expect(installs[1]!.name).toBe('Welcome new leads');
    expect((await service.getTemplate(mine, 'tmpl_new_lead_welcome')).installCount).toBe(5);
    await service.updateRule(mine, installs[1]!.id, { steps }, ['steps']);
    expect((await service.getTemplate(mine, 'tmpl_new_lead_welcome')).steps).toHaveLength(4);
  });

  it('refuses to activate an installed rule until its assign_user step has users', async () => {
    const rule = await service.installTemplate(mine, 'tmpl_lead_round_robin');
    await expect(service.setActive(mine, rule.id, true)).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: { 'steps.0.config.userIds': [expect.any(String)] },
    });
  });

  it('pages and filters execution logs, refusing a bad status', async () => {
    const rule = await service.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    await expect(service.listLogs(mine, rule.id, { status: 'done', offset: 0, limit: 20 })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    expect(await service.listLogs(mine, rule.id, { status: 'completed', after: '2020-01-01', offset: 0, limit: 20 })).toEqual({
      total: 0,
      items: [],
    });
  });
});
