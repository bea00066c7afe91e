import { EMAIL_TEMPLATES } from './email-templates';
import { BUILT_IN_TEMPLATES } from './gallery';
import { STEP_TYPES, WAIT_UNITS } from './model';
import { placeholdersIn, unknownPlaceholders } from './placeholders';
import { validateRuleDefinition } from './rule-validation';
import { TRIGGERS } from './triggers';

describe('the built-in template gallery', () => {
  it.each(BUILT_IN_TEMPLATES.map((t) => [t.id, t] as const))('%s passes rule validation unchanged', (_id, template) => {
    const { id: _ignored, description: _d, category: _c, ...definition } = template;
    expect(validateRuleDefinition(structuredClone(definition))).toEqual(definition);
  });

  it('has at least twelve templates across the four spec categories, with unique tmpl_ ids', () => {
    expect(BUILT_IN_TEMPLATES.length).toBeGreaterThanOrEqual(12);
    expect(new Set(BUILT_IN_TEMPLATES.map((t) => t.category))).toEqual(
      new Set(['lead_management', 'sales_pipeline', 'customer_success', 'support']),
    );
    expect(new Set(BUILT_IN_TEMPLATES.map((t) => t.id)).size).toBe(BUILT_IN_TEMPLATES.length);
    for (const t of BUILT_IN_TEMPLATES) expect(t.id).toMatch(/^tmpl_[a-z0-9_]+$/);
  });

  it('uses every step type, every wait unit, both email modes and every trigger kind', () => {
    const steps = BUILT_IN_TEMPLATES.flatMap((t) => t.steps);
    expect(new Set(steps.map((s) => s.type))).toEqual(new Set(STEP_TYPES));
    expect(new Set(steps.flatMap((s) => (s.type === 'wait' ? [s.config.unit] : [])))).toEqual(new Set(WAIT_UNITS));
    expect(new Set(steps.flatMap((s) => (s.type === 'send_email' ? [s.config.mode] : [])))).toEqual(new Set(['template', 'ai_generated']));
    expect(new Set(BUILT_IN_TEMPLATES.map((t) => t.trigger))).toEqual(new Set(Object.keys(TRIGGERS)));
  });

  it('uses every placeholder the spec shows', () => {
    const text = JSON.stringify(BUILT_IN_TEMPLATES) + JSON.stringify(EMAIL_TEMPLATES);
    const used = new Set(placeholdersIn(text));
    for (const name of ['lead.firstName', 'lead.lastName', 'lead.company', 'workspace.name']) expect(used).toContain(name);
  });

  it('has email templates whose placeholders fit their record type', () => {
    for (const template of EMAIL_TEMPLATES) expect(unknownPlaceholders(template.subject + template.body, template.recordType)).toEqual([]);
  });
});
