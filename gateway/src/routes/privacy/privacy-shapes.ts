/** The privacy routes' request body and answers, one description for validation and the document. */
import { FIELD_LIMITS } from '@crm/vocabulary';
import type { JsonSchema } from '../../openapi/operation';
import { bodyCheck, textField, type BodyTable } from '../field-table';

/** `{email}`: compared trimmed and case-insensitively by every service. */
export const personFields = {
  email: textField({ max: FIELD_LIMITS.email, trim: true, notBlank: true }, { required: true }),
} satisfies BodyTable;

export const personBody = bodyCheck(personFields);

/** The bundle's sections, in the contract's order; each an array of the API's JSON for that kind. */
export const BUNDLE_SECTIONS = [
  'contacts',
  'leads',
  'notes',
  'tasks',
  'activities',
  'auditEntries',
  'emails',
  'importRows',
  'webhookDeliveries',
] as const;

export type BundleSection = (typeof BUNDLE_SECTIONS)[number];

const SECTION_DESCRIPTIONS: Record<BundleSection, string> = {
  contacts: 'Every contact with the email (compared case-insensitively), as GET /api/contacts/{id}/ answers it.',
  leads: 'Every lead with the email, as GET /api/leads/{id}/ answers it.',
  notes: 'Notes about those contacts and leads: `{id, relatedTo, body, createdAt}`.',
  tasks: 'Tasks about them, as the task list shows them.',
  activities: 'Their activity-log entries.',
  auditEntries: 'Their audit-log entries (empty where the audit log holds none).',
  emails: 'Outbound emails sent to the address or about those records, as the email log shows them.',
  importRows: 'Import report rows (failed or duplicate rows) holding the email: `{jobId, row, kind, message, cells}`.',
  webhookDeliveries:
    'Webhook delivery attempts whose payload names the person, as the delivery log shows them, with `subscriptionId` and the `payload` sent.',
};

const timestamp: JsonSchema = { type: 'string', format: 'date-time' };

export const bundleSchema: JsonSchema = {
  type: 'object',
  required: ['email', 'exportedAt', ...BUNDLE_SECTIONS],
  properties: {
    email: { type: 'string' },
    exportedAt: timestamp,
    ...Object.fromEntries(
      BUNDLE_SECTIONS.map((section) => [
        section,
        { type: 'array', items: { type: 'object', additionalProperties: true }, description: SECTION_DESCRIPTIONS[section] },
      ]),
    ),
  },
};

export const receiptSchema: JsonSchema = {
  type: 'object',
  required: ['email', 'erasedAt', 'counts'],
  properties: {
    email: { type: 'string' },
    erasedAt: timestamp,
    counts: {
      type: 'object',
      required: [...BUNDLE_SECTIONS],
      properties: Object.fromEntries(BUNDLE_SECTIONS.map((section) => [section, { type: 'integer', minimum: 0 }])),
      description:
        'Deleted: contacts, leads, notes, tasks, activities. Kept with their values blanked ("[erased]"): auditEntries, emails, importRows, webhookDeliveries.',
    },
  },
};
