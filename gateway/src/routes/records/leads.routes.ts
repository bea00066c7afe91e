/** Leads: `/api/leads/` CRUD and list, and conversion into a contact (+ account, + opportunity). */
import { FIELD_LIMITS, LEAD_FIELDS, OPPORTUNITY_STAGES } from '@crm/vocabulary';
import type { Router } from 'express';
import { idParameter, operation, type OpenApiPaths } from '../../openapi/operation';
import { pathId } from '../validate';
import type { RecordsCall } from './records-call';
import type { RecordKind } from './record-kind';
import { recordFieldsOf } from './built-in-record-fields';
import { CREATED_RANGE, fromTable, orderingParameter, searchParameter } from './record-fields';
import { answerSchema } from '../field-table';
import { nullable, pickAnswer, recordAnswer, renderRecord, t } from './record-shape';
import { translateWrite, writeSchema, type WriteShape } from './write-body';

type LeadFilter = 'externalId' | 'status' | 'source' | 'assignedTo' | 'search' | 'createdAfter' | 'createdBefore' | 'ordering';

const leadTable = fromTable<LeadFilter>(recordFieldsOf(LEAD_FIELDS), [
  'externalId',
  'status',
  'source',
  'assignedTo',
  searchParameter('Case-insensitive literal substring of the name ("first last"), email or company (one literal, no wildcards).'),
  ...CREATED_RANGE,
  orderingParameter('lead'),
]);

export const leadKind: RecordKind<LeadFilter> = {
  singular: 'lead',
  plural: 'leads',
  name: 'Lead',
  pluralName: 'Leads',
  aName: 'a lead',
  path: '/api/leads',
  tag: 'leads',
  idPrefix: 'ld_',
  ...leadTable,
  listRequest: (f) => ({ ...f }),
  createDescription:
    'Requires `email` and at least one of `firstName`, `lastName`. Every failing field is listed in one 422. Read-only fields are ignored.',
  updateDescription:
    'Any subset of the writable fields (status, leadScore, ...). `status: converted` is refused (422): use convert. Read-only fields are ignored.',
  listDescription: 'Paginated lead list items, newest first.',
  deleteDescription: 'Removes the lead with its notes and tasks; its activities stay in the audit log.',
  merge: 'MergeLead',
};

const conversionShape: WriteShape = {
  fields: {
    // Null is the same as leaving an option out (translateWrite's `absent`).
    createAccount: { type: 'boolean', nullable: true, description: 'Default false.' },
    accountName: {
      type: 'string',
      nullable: true,
      maxLength: FIELD_LIMITS.name,
      description: "Default: the lead's company (422 when creating an account and the lead has none).",
    },
    createOpportunity: { type: 'boolean', nullable: true, description: 'Default false; needs createAccount (422 otherwise).' },
    opportunityName: { type: 'string', nullable: true, maxLength: FIELD_LIMITS.name, description: 'Default "<account name> opportunity".' },
    opportunityValue: { type: 'number', nullable: true, minimum: 0, description: 'Default 0.' },
    opportunityStage: { type: 'string', nullable: true, choices: OPPORTUNITY_STAGES, description: 'Default `prospecting`.' },
  },
  readOnly: [],
  required: [],
};

/** What a conversion answers of each record it touched. */
const converted = {
  lead: pickAnswer(leadTable.answer, ['id', 'status', 'convertedAt']),
  contact: recordAnswer({ id: t.id('cnt_'), firstName: t.string(), lastName: t.string() }),
  account: recordAnswer({ id: t.id('acc_'), name: t.string() }),
  opportunity: recordAnswer({ id: t.id('opp_'), name: t.string(), value: t.number() }),
};

const conversionSchema = {
  type: 'object',
  required: ['lead', 'contact', 'account', 'opportunity'],
  properties: {
    lead: answerSchema(converted.lead),
    contact: answerSchema(converted.contact),
    account: nullable(answerSchema(converted.account)),
    opportunity: nullable(answerSchema(converted.opportunity)),
  },
  additionalProperties: false,
};

/** POST /api/leads/{id}/convert/, on the leads router. */
export function conversionRoute(router: Router, call: RecordsCall): void {
  router.post('/api/leads/:id/convert', async (req, res) => {
    const leadId = pathId(req.params.id);
    const write = translateWrite((req.body ?? {}) as Record<string, unknown>, conversionShape, 'absent');
    const answer = await call('ConvertLead', { leadId, ...write.message, invalidFields: write.invalid }, res);
    res.json({
      lead: renderRecord(converted.lead, answer.lead),
      contact: renderRecord(converted.contact, answer.contact),
      account: renderRecord(converted.account, answer.account),
      opportunity: renderRecord(converted.opportunity, answer.opportunity),
    });
  });
}

/** The OpenAPI part of {@link conversionRoute}. */
export function conversionPaths(): OpenApiPaths {
  return {
    '/api/leads/{id}/convert/': {
      post: operation({
        operationId: 'convertLead',
        summary: 'Convert a lead into a contact, optionally with an account and an opportunity',
        description:
          'All fields optional. Atomic: the lead becomes `converted` (with convertedAt and convertedContactId) together with everything asked for, or nothing changes. The new contact copies name, email, phone, owner and notes. Each new record takes the lead’s custom values of the fields its kind defines with the same key and type; a value its field cannot hold, a clash on its unique field or a required field left empty is a 422 keyed `customFields.<key>`. `account`/`opportunity` are null when not created. A lead already converted: 400 `{"detail": "Lead is already converted."}`.',
        tags: ['leads'],
        authenticated: true,
        parameters: [idParameter('The lead id (`ld_...`).')],
        requestBody: writeSchema(conversionShape, 'update'),
        responses: { 200: { description: 'What the conversion made.', schema: conversionSchema } },
        errors: [400, 404],
      }),
    },
  };
}
