/**
 * The built-in template gallery: rules worth installing as they are (or after choosing users for
 * an assign_user step), across lead management, sales pipeline, customer success and support.
 * Every template passes rule validation (gallery.spec.ts), and together they use every step type,
 * every wait unit and every placeholder the spec shows.
 */
import type { Condition, Step, TemplateDefinition } from './model';

/** When the gallery was published; built-in templates' createdAt. */
export const GALLERY_CREATED_AT = '2025-01-01T00:00:00Z';

const eq = (field: string, value: string | number | boolean): Condition => ({ field, operator: 'eq', value });
const op = (field: string, operator: Condition['operator'], value?: Condition['value']): Condition =>
  value === undefined ? { field, operator } : { field, operator, value };

function steps(...list: Array<Omit<Step, 'order'>>): Step[] {
  return list.map((step, index) => ({ ...step, order: index + 1 }) as Step);
}
const email = (templateId: string, label: string): Omit<Step, 'order'> => ({
  type: 'send_email',
  config: { mode: 'template', templateId },
  label,
});
const aiEmail = (prompt: string, label: string): Omit<Step, 'order'> => ({
  type: 'send_email',
  config: { mode: 'ai_generated', prompt },
  label,
});
const wait = (duration: number, unit: 'minutes' | 'hours' | 'days', label: string): Omit<Step, 'order'> => ({
  type: 'wait',
  config: { duration, unit },
  label,
});
const task = (name: string, dueDays: number, label: string): Omit<Step, 'order'> => ({
  type: 'create_task',
  config: { name, assignTo: 'assigned_user', dueDays },
  label,
});
const notify = (message: string, label: string): Omit<Step, 'order'> => ({
  type: 'send_notification',
  config: { recipients: ['assigned_user'], message },
  label,
});
const assign = (label: string): Omit<Step, 'order'> => ({ type: 'assign_user', config: { mode: 'round_robin', userIds: [] }, label });

export const BUILT_IN_TEMPLATES: TemplateDefinition[] = [
  // ---------------------------------------------------------------- lead management
  {
    id: 'tmpl_new_lead_welcome',
    name: 'Welcome new leads',
    description:
      'Sends a welcome email the moment a lead arrives, follows up two days later, and asks the owner to call if the lead is still new.',
    category: 'lead_management',
    trigger: 'lead_created',
    triggerConditions: [op('email', 'is_not_empty')],
    exitConditions: [eq('status', 'converted'), eq('status', 'unqualified')],
    steps: steps(
      email('lead_welcome', 'Welcome email'),
      wait(2, 'days', 'Give them two days'),
      email('lead_follow_up', 'Follow-up email'),
      task('Call {{lead.firstName}} {{lead.lastName}} ({{lead.company}})', 1, 'Call task for the owner'),
    ),
  },
  {
    id: 'tmpl_lead_round_robin',
    name: 'Round-robin lead assignment',
    description: 'Shares new leads fairly among the sales team you choose, then tells the new owner.',
    category: 'lead_management',
    trigger: 'lead_created',
    triggerConditions: [op('assignedTo', 'is_empty')],
    exitConditions: [],
    steps: steps(
      assign('Assign the next rep in turn'),
      notify('New lead for you: {{lead.firstName}} {{lead.lastName}} at {{lead.company}}.', 'Tell the new owner'),
    ),
  },
  {
    id: 'tmpl_hot_lead_alert',
    name: 'Hot lead alert',
    description: 'When a high-scoring lead comes in, alert its owner at once and create a same-day call task.',
    category: 'lead_management',
    trigger: 'lead_created',
    triggerConditions: [op('leadScore', 'gte', 80)],
    exitConditions: [eq('status', 'converted')],
    steps: steps(
      notify('Hot lead: {{lead.firstName}} {{lead.lastName}} ({{lead.company}}), score {{lead.leadScore}}.', 'Alert the owner'),
      task('Call hot lead {{lead.firstName}} {{lead.lastName}} today', 0, 'Same-day call'),
    ),
  },
  {
    id: 'tmpl_lead_nurture',
    name: 'Nurture leads that are not ready yet',
    description: 'A three-touch sequence over three weeks for leads moved to nurturing, stopping when they qualify or convert.',
    category: 'lead_management',
    trigger: 'lead_status_changed',
    triggerConditions: [eq('status', 'nurturing')],
    exitConditions: [op('status', 'in', ['qualified', 'converted', 'lost', 'unqualified'])],
    steps: steps(
      email('lead_nurture_tips', 'Helpful ideas'),
      wait(1, 'days', 'A day later'),
      aiEmail(
        'Write a short, friendly note to {{lead.firstName}} at {{lead.company}} sharing one customer story relevant to their industry, signed by {{workspace.name}}.',
        'Personal story',
      ),
      wait(14, 'days', 'Two weeks later'),
      email('lead_reengage', 'Check back in'),
    ),
  },
  {
    id: 'tmpl_qualified_lead_handoff',
    name: 'Qualified lead hand-off',
    description: 'When a lead is qualified, notify its owner and schedule a discovery call within two days.',
    category: 'lead_management',
    trigger: 'lead_status_changed',
    triggerConditions: [eq('status', 'qualified')],
    exitConditions: [eq('status', 'converted')],
    steps: steps(
      notify('{{lead.firstName}} {{lead.lastName}} from {{lead.company}} is qualified: book a discovery call.', 'Tell the owner'),
      task('Discovery call with {{lead.firstName}} {{lead.lastName}} ({{lead.company}})', 2, 'Discovery call'),
    ),
  },
  {
    id: 'tmpl_stale_lead_reengage',
    name: 'Re-engage contacted leads that went quiet',
    description: 'After first contact, wait four hours for a reply, then send a friendly nudge and remind the owner a few days later.',
    category: 'lead_management',
    trigger: 'lead_status_changed',
    triggerConditions: [eq('status', 'contacted')],
    exitConditions: [op('status', 'not_in', ['contacted'])],
    steps: steps(
      wait(4, 'hours', 'Wait for a reply'),
      email('lead_follow_up', 'Nudge'),
      wait(3, 'days', 'Three days later'),
      task('Follow up with {{lead.firstName}} {{lead.lastName}} by phone', 1, 'Phone follow-up'),
    ),
  },
  // ---------------------------------------------------------------- sales pipeline
  {
    id: 'tmpl_proposal_follow_up',
    name: 'Proposal follow-up',
    description: 'When an opportunity enters the proposal stage, email its contact after a day and remind the owner to check in.',
    category: 'sales_pipeline',
    trigger: 'proposal_status_changed',
    triggerConditions: [eq('stage', 'proposal')],
    exitConditions: [op('stage', 'in', ['closed_won', 'closed_lost'])],
    steps: steps(
      wait(1, 'days', 'Give them a day'),
      email('opportunity_proposal_follow_up', 'Proposal follow-up'),
      wait(3, 'days', 'Three days later'),
      task('Check in on the proposal for {{opportunity.name}}', 1, 'Owner check-in'),
    ),
  },
  {
    id: 'tmpl_big_deal_alert',
    name: 'Big deal in negotiation',
    description: 'Alert the owner when a deal over 50,000 reaches negotiation, with a task to line up approvals.',
    category: 'sales_pipeline',
    trigger: 'opportunity_stage_changed',
    triggerConditions: [eq('stage', 'negotiation'), op('value', 'gt', 50000)],
    exitConditions: [op('stage', 'in', ['closed_won', 'closed_lost'])],
    steps: steps(
      notify('{{opportunity.name}} ({{opportunity.value}}) is in negotiation; close date {{opportunity.closeDate}}.', 'Alert the owner'),
      task('Line up approvals for {{opportunity.name}}', 2, 'Approvals'),
    ),
  },
  {
    id: 'tmpl_closed_won_thanks',
    name: 'Thank customers for a won deal',
    description: 'When a deal is won, thank the customer within the hour and create a kickoff task.',
    category: 'sales_pipeline',
    trigger: 'opportunity_stage_changed',
    triggerConditions: [eq('stage', 'closed_won')],
    exitConditions: [],
    steps: steps(
      wait(30, 'minutes', 'Half an hour later'),
      email('opportunity_won_thank_you', 'Thank-you email'),
      task('Kickoff meeting for {{opportunity.name}} ({{opportunity.accountName}})', 3, 'Kickoff'),
    ),
  },
  {
    id: 'tmpl_closed_lost_review',
    name: 'Learn from lost deals',
    description: 'When a deal is lost, ask the owner to record why, and look at it again in three months.',
    category: 'sales_pipeline',
    trigger: 'opportunity_stage_changed',
    triggerConditions: [eq('stage', 'closed_lost')],
    exitConditions: [],
    steps: steps(
      notify('{{opportunity.name}} was lost. Please record the loss reason while it is fresh.', 'Ask for the reason'),
      wait(90, 'days', 'Three months later'),
      task('Revisit lost deal {{opportunity.name}} ({{opportunity.accountName}})', 7, 'Revisit'),
    ),
  },
  // ---------------------------------------------------------------- customer success
  {
    id: 'tmpl_customer_onboarding',
    name: 'New contact onboarding',
    description: 'Welcome a new contact, send a getting-started guide two days later, and book a check-in after two weeks.',
    category: 'customer_success',
    trigger: 'contact_created',
    triggerConditions: [op('email', 'is_not_empty')],
    exitConditions: [eq('stage', 'inactive')],
    steps: steps(
      email('contact_welcome', 'Welcome'),
      wait(2, 'days', 'Two days later'),
      email('contact_onboarding', 'Getting started'),
      wait(14, 'days', 'Two weeks later'),
      task('Onboarding check-in with {{contact.firstName}} {{contact.lastName}}', 2, 'Check-in call'),
    ),
  },
  {
    id: 'tmpl_customer_feedback',
    name: 'Ask new customers for feedback',
    description: 'A month after a customer contact is added, check in and ask for feedback.',
    category: 'customer_success',
    trigger: 'contact_created',
    triggerConditions: [eq('stage', 'customer')],
    exitConditions: [eq('stage', 'inactive')],
    steps: steps(
      wait(30, 'days', 'After a month'),
      email('contact_check_in', 'Check in'),
      wait(7, 'days', 'A week later'),
      email('contact_feedback', 'Feedback request'),
    ),
  },
  // ---------------------------------------------------------------- support
  {
    id: 'tmpl_vip_contact_support',
    name: 'VIP contact support alert',
    description: 'When a contact tagged vip is added, assign a dedicated support rep in turn and tell them.',
    category: 'support',
    trigger: 'contact_created',
    triggerConditions: [op('tags', 'contains', 'vip')],
    exitConditions: [],
    steps: steps(
      assign('Assign a support rep in turn'),
      notify(
        'VIP contact {{contact.firstName}} {{contact.lastName}} ({{contact.title}}) was added. You are their support contact.',
        'Tell the rep',
      ),
      task('Introduce yourself to {{contact.firstName}} {{contact.lastName}}', 1, 'Introduction'),
    ),
  },
  {
    id: 'tmpl_unqualified_lead_support',
    name: 'Route unqualified leads to support',
    description: 'Leads marked unqualified often have a support question: hand them to support and reply personally.',
    category: 'support',
    trigger: 'lead_status_changed',
    triggerConditions: [eq('status', 'unqualified'), op('email', 'is_not_empty')],
    exitConditions: [eq('status', 'converted')],
    steps: steps(
      assign('Assign a support rep in turn'),
      aiEmail(
        'Write a brief, helpful reply to {{lead.firstName}} {{lead.lastName}} offering support resources from {{workspace.name}} and asking how we can help.',
        'Personal reply',
      ),
      task('Make sure {{lead.firstName}} {{lead.lastName}} got an answer', 2, 'Support follow-up'),
    ),
  },
];

export function findBuiltInTemplate(id: string): TemplateDefinition | undefined {
  return BUILT_IN_TEMPLATES.find((template) => template.id === id);
}
