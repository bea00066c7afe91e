/**
 * The email templates a `send_email` step in `template` mode can name by `templateId`. Each is
 * written for one record type, with that type's placeholders; a rule may use only the templates of
 * its trigger's record type.
 */
import type { RecordType } from './model';

export interface EmailTemplate {
  id: string;
  recordType: RecordType;
  subject: string;
  body: string;
}

const SIGNATURE = '\n\n— {{owner.firstName}} at {{workspace.name}}';

export const EMAIL_TEMPLATES: EmailTemplate[] = [
  {
    id: 'lead_welcome',
    recordType: 'lead',
    subject: 'Welcome, {{lead.firstName}}',
    body:
      'Hi {{lead.firstName}},\n\nThanks for your interest in {{workspace.name}}. We would love to learn what {{lead.company}} is working on.' +
      SIGNATURE,
  },
  {
    id: 'lead_follow_up',
    recordType: 'lead',
    subject: 'Following up, {{lead.firstName}}',
    body:
      'Hi {{lead.firstName}},\n\nI wanted to follow up on my last note. Is there a good time this week to talk about {{lead.company}}?' +
      SIGNATURE,
  },
  {
    id: 'lead_nurture_tips',
    recordType: 'lead',
    subject: 'A few ideas for {{lead.company}}',
    body:
      'Hi {{lead.firstName}},\n\nHere are three ways teams like {{lead.company}} get value from {{workspace.name}} in their first month.' +
      SIGNATURE,
  },
  {
    id: 'lead_reengage',
    recordType: 'lead',
    subject: 'Still interested, {{lead.firstName}}?',
    body: 'Hi {{lead.firstName}},\n\nIt has been a while. If the timing is better now, just reply and we will pick things up.' + SIGNATURE,
  },
  {
    id: 'contact_welcome',
    recordType: 'contact',
    subject: 'Welcome to {{workspace.name}}, {{contact.firstName}}',
    body:
      'Hi {{contact.firstName}},\n\nWelcome aboard. Your point of contact is {{owner.firstName}} {{owner.lastName}}; reply any time.' +
      SIGNATURE,
  },
  {
    id: 'contact_onboarding',
    recordType: 'contact',
    subject: 'Getting started, {{contact.firstName}}',
    body: 'Hi {{contact.firstName}},\n\nHere is a short guide to your first week with {{workspace.name}}.' + SIGNATURE,
  },
  {
    id: 'contact_check_in',
    recordType: 'contact',
    subject: 'How is everything going, {{contact.firstName}}?',
    body: 'Hi {{contact.firstName}},\n\nJust checking in: is there anything we can help with?' + SIGNATURE,
  },
  {
    id: 'contact_feedback',
    recordType: 'contact',
    subject: 'Two minutes for feedback?',
    body: 'Hi {{contact.firstName}},\n\nWe would value your honest feedback on working with {{workspace.name}}.' + SIGNATURE,
  },
  {
    id: 'opportunity_proposal_follow_up',
    recordType: 'opportunity',
    subject: 'Your proposal: {{opportunity.name}}',
    body: 'Hello,\n\nI wanted to make sure the proposal for {{opportunity.name}} reached you and to answer any questions.' + SIGNATURE,
  },
  {
    id: 'opportunity_won_thank_you',
    recordType: 'opportunity',
    subject: 'Thank you from {{workspace.name}}',
    body: 'Hello,\n\nThank you for choosing {{workspace.name}} for {{opportunity.name}}. Your onboarding starts now.' + SIGNATURE,
  },
];

export function findEmailTemplate(id: string): EmailTemplate | undefined {
  return EMAIL_TEMPLATES.find((template) => template.id === id);
}
