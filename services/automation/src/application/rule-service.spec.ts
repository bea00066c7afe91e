import { PLAN_QUOTAS } from '@crm/vocabulary';
import { DomainError } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import { BUILT_IN_TEMPLATES } from '../domain/gallery';
import { automationCollections } from '../store/collections';
import { createRepositories } from '../store/repositories';
import { FakeDirectory } from '../testing/automation-factory';
import { RuleService } from './rule-service';
import { TemplateService } from './template-service';

const mine = { workspaceId: 'ws_mine' };
const theirs = { workspaceId: 'ws_theirs' };
const steps = [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }];

describe('rules and templates', () => {
  let store: DocumentStore;
  let rules: RuleService;
  let templates: TemplateService;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
    const repositories = createRepositories(store);
    rules = new RuleService(repositories);
    templates = new TemplateService(repositories.templates, rules);
  });
  afterEach(() => store.close());

  it('creates rules inactive with a rul_ id', async () => {
    const rule = await rules.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    expect(rule).toMatchObject({ isActive: false, enrolledCount: 0, installedFromTemplateId: null });
    expect(rule.id).toMatch(/^rul_/);
  });

  it('updates any subset and validates the result as a whole', async () => {
    const rule = await rules.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    expect((await rules.updateRule(mine, rule.id, { name: 'Renamed' }, ['name'])).name).toBe('Renamed');
    await expect(
      rules.updateRule(
        mine,
        rule.id,
        { trigger: 'contact_created', triggerConditions: [{ field: 'company', operator: 'eq', value: 'x' }] },
        ['trigger', 'triggerConditions'],
      ),
    ).rejects.toThrow(DomainError);
  });

  it('saves an assign_user step only with users of the workspace, and refuses while they cannot be checked', async () => {
    const directory = new FakeDirectory();
    directory.people.set('usr_ada', { id: 'usr_ada', firstName: 'Ada', lastName: 'L', email: 'ada@x.io' });
    const checked = new RuleService(createRepositories(store), undefined, directory);
    const assign = (userIds: string[]) => [{ type: 'assign_user', order: 1, config: { mode: 'round_robin', userIds } }];
    await expect(
      checked.createRule(mine, { name: 'R', trigger: 'lead_created', steps: assign(['usr_ada', 'usr_eve']) }),
    ).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: { 'steps.0.config.userIds.1': ['There is no user usr_eve in this workspace.'] },
    });
    const rule = await checked.createRule(mine, { name: 'R', trigger: 'lead_created', steps: assign(['usr_ada']) });
    await expect(checked.updateRule(mine, rule.id, { steps: assign(['usr_eve']) }, ['steps'])).rejects.toMatchObject({
      kind: 'validation_failed',
    });
    directory.users = async () => {
      throw new DomainError('unavailable', 'auth is down');
    };
    await expect(checked.createRule(mine, { name: 'R2', trigger: 'lead_created', steps: assign(['usr_ada']) })).rejects.toMatchObject({
      kind: 'unavailable',
    });
    expect((await checked.listRules(mine)).items.map((r) => r.name)).toEqual(['R']);
  });

  it("hides another workspace's rules and custom templates", async () => {
    const rule = await rules.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    const template = await templates.saveAsTemplate(mine, rule.id, { name: 'My template' });
    expect(template).toMatchObject({ category: 'custom', isBuiltIn: false, installCount: 0 });
    await expect(rules.getRule(theirs, rule.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(templates.getTemplate(theirs, template.id)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await templates.listTemplates(theirs, { limit: 100 })).items.map((t) => t.id)).not.toContain(template.id);
    expect((await templates.listTemplates(mine, { category: 'custom' })).items.map((t) => t.id)).toEqual([template.id]);
  });

  it('filters the gallery by category, trigger and search', async () => {
    const support = (await templates.listTemplates(mine, { category: 'support' })).items;
    expect(support.length).toBeGreaterThan(0);
    expect(support.every((t) => t.category === 'support')).toBe(true);
    const proposal = (await templates.listTemplates(mine, { trigger: 'proposal_status_changed' })).items;
    expect(proposal.map((t) => t.id)).toEqual(['tmpl_proposal_follow_up']);
    expect((await templates.listTemplates(mine, { search: 'ROUND-ROBIN' })).items.map((t) => t.id)).toEqual(['tmpl_lead_round_robin']);
    expect((await templates.listTemplates(mine, { limit: 100 })).items).toHaveLength(BUILT_IN_TEMPLATES.length);
  });

  it('pages the templates through the built-in ones and on into the custom ones, newest first', async () => {
    const rule = await rules.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    const custom: string[] = [];
    for (const name of ['First', 'Second', 'Third']) {
      custom.unshift((await templates.saveAsTemplate(mine, rule.id, { name })).id);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // createdAt has whole seconds
    }
    const builtIn = BUILT_IN_TEMPLATES.map((t) => t.id);
    const page = (offset: number) => templates.listTemplates(mine, { offset, limit: 5 });

    const straddling = await page(builtIn.length - 4);
    expect(straddling.total).toBe(builtIn.length + 3);
    expect(straddling.items.map((t) => t.id)).toEqual([...builtIn.slice(-4), custom[0]]);
    expect((await page(builtIn.length + 1)).items.map((t) => t.id)).toEqual(custom.slice(1));
    expect((await page(builtIn.length + 3)).items).toEqual([]);
  });

  it('pages the rules, newest first, with the total', async () => {
    for (const name of ['A', 'B', 'C']) await rules.createRule(mine, { name, trigger: 'lead_created', steps });
    const first = await rules.listRules(mine, { offset: 0, limit: 2 });
    expect(first.total).toBe(3);
    expect(first.items).toHaveLength(2);
    const second = await rules.listRules(mine, { offset: 2, limit: 2 });
    expect([...first.items, ...second.items].map((r) => r.name).sort()).toEqual(['A', 'B', 'C']);
  });

  it('installs an independent copy and counts installs atomically', async () => {
    const installs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        templates.installTemplate(i % 2 ? mine : theirs, 'tmpl_new_lead_welcome', i === 0 ? 'Named' : undefined),
      ),
    );
    expect(installs[0]).toMatchObject({ name: 'Named', installedFromTemplateId: 'tmpl_new_lead_welcome', isActive: false });
    expect(installs[1]!.name).toBe('Welcome new leads');
    expect((await templates.getTemplate(mine, 'tmpl_new_lead_welcome')).installCount).toBe(5);
    await rules.updateRule(mine, installs[1]!.id, { steps }, ['steps']);
    expect((await templates.getTemplate(mine, 'tmpl_new_lead_welcome')).steps).toHaveLength(4);
  });

  it('refuses to activate one rule more than the plan allows (422 on isActive), while deactivating always works', async () => {
    const starter = { ...mine, plan: 'starter' };
    const made = [];
    for (let i = 0; i <= PLAN_QUOTAS.starter.activeRules; i += 1)
      made.push(await rules.createRule(starter, { name: `R${i}`, trigger: 'lead_created', steps }));
    for (const rule of made.slice(0, -1)) await rules.setActive(starter, rule.id, true);
    await expect(rules.setActive(starter, made.at(-1)!.id, true)).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: { isActive: [expect.stringContaining(`allows ${PLAN_QUOTAS.starter.activeRules} active rules`)] },
    });
    expect((await rules.getRule(starter, made.at(-1)!.id)).isActive).toBe(false);
    await rules.setActive(starter, made[0]!.id, true); // already active: unchanged, no quota check
    await rules.setActive(starter, made[0]!.id, false);
    expect((await rules.setActive(starter, made.at(-1)!.id, true)).isActive).toBe(true);
  });

  it('refuses to activate an installed rule until its assign_user step has users', async () => {
    const rule = await templates.installTemplate(mine, 'tmpl_lead_round_robin');
    await expect(rules.setActive(mine, rule.id, true)).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: { 'steps.0.config.userIds': [expect.any(String)] },
    });
  });

  it('pages and filters execution logs, refusing a bad status', async () => {
    const rule = await rules.createRule(mine, { name: 'R', trigger: 'lead_created', steps });
    await expect(rules.listLogs(mine, rule.id, { status: 'done', offset: 0, limit: 20 })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    expect(await rules.listLogs(mine, rule.id, { status: 'completed', after: '2020-01-01', offset: 0, limit: 20 })).toEqual({
      total: 0,
      items: [],
      nextCursor: null,
    });
  });
});
