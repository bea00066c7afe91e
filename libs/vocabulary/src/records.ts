/** The values of the records' choice fields, as the public API spells them (also the stored values). */

export const CONTACT_STAGES = ['new', 'contacted', 'engaged', 'proposal_sent', 'negotiation', 'customer', 'inactive'] as const;
export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'nurturing', 'unqualified', 'converted', 'lost'] as const;
export const ACCOUNT_STAGES = ['prospect', 'active', 'customer', 'partner', 'churned'] as const;
export const OPPORTUNITY_STAGES = [
  'prospecting',
  'qualification',
  'needs_analysis',
  'proposal',
  'negotiation',
  'closed_won',
  'closed_lost',
] as const;
export const TASK_STATUSES = ['open', 'completed'] as const;

export type ContactStage = (typeof CONTACT_STAGES)[number];
export type LeadStatus = (typeof LEAD_STATUSES)[number];
export type AccountStage = (typeof ACCOUNT_STAGES)[number];
export type OpportunityStage = (typeof OPPORTUNITY_STAGES)[number];
export type TaskStatus = (typeof TASK_STATUSES)[number];
