/**
 * What an opportunity accepts, and the pipeline rules: probability follows the stage unless given,
 * and entering closed_won/closed_lost sets closedDate to today unless given.
 */
import type { FieldErrors } from '@crm/observability';
import { dateOf } from './clock';
import { checkFields, FieldErrorList, LIMITS, type Body, type FieldTable, type KnownReferences } from './field-rules';
import { OPPORTUNITY_STAGES, type OpportunityDocument, type OpportunityStage } from './model';
import { opportunitySearchText } from './search-text';
import { customValueChanges, newCustomFields, searchableValues } from './custom-field-values';

export const OPPORTUNITY_FIELDS: FieldTable = {
  externalId: { kind: 'externalId', nullable: true },
  name: { kind: 'text', max: LIMITS.name, required: true },
  // Required on create; null unlinks on update (as deleting the account does).
  accountId: { kind: 'reference', target: 'account', nullable: true },
  value: { kind: 'number', min: 0 },
  stage: { kind: 'choice', values: OPPORTUNITY_STAGES },
  probability: { kind: 'integer', min: 0, max: 100 },
  closeDate: { kind: 'date', nullable: true },
  closedDate: { kind: 'date', nullable: true },
  lossReason: { kind: 'text', max: LIMITS.longText, nullable: true },
  assignedTo: { kind: 'reference', target: 'user', nullable: true },
  source: { kind: 'text', max: LIMITS.shortText },
  contactIds: { kind: 'references', target: 'contact' },
  description: { kind: 'text', max: LIMITS.longText },
  customFields: { kind: 'customFields', recordKind: 'opportunity' },
};

export const OPPORTUNITY_READ_ONLY = ['id', 'accountName', 'assignedToName', 'createdAt', 'updatedAt'];

export const STAGE_PROBABILITY: Record<OpportunityStage, number> = {
  prospecting: 10,
  qualification: 20,
  needs_analysis: 40,
  proposal: 60,
  negotiation: 80,
  closed_won: 100,
  closed_lost: 0,
};

export function isClosed(stage: OpportunityStage): boolean {
  return stage === 'closed_won' || stage === 'closed_lost';
}

export const OPEN_STAGES = OPPORTUNITY_STAGES.filter((stage) => !isClosed(stage));

export interface OpportunityInput {
  body: Body;
  references: KnownReferences;
  earlierErrors?: FieldErrors;
}

export function newOpportunity(input: OpportunityInput, id: string, workspaceId: string, now: Date): OpportunityDocument {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, OPPORTUNITY_FIELDS, OPPORTUNITY_READ_ONLY, input.references, errors, 'create');
  if (!errors.errors.accountId) {
    if (!('accountId' in input.body)) errors.add('accountId', 'This field is required.');
    else if (v.accountId === null) errors.add('accountId', 'This field may not be null.');
  }
  errors.throwIfAny();
  const opportunity = {
    ...opportunityDocument(v, id, workspaceId, now),
    ...newCustomFields(v, workspaceId, 'opportunity', input.references.customFields),
  };
  opportunity.searchText = opportunitySearchText(opportunity, searchableValues(opportunity.customFields, input.references.customFields));
  return opportunity;
}

/** An opportunity from already-checked values (also used by lead conversion). */
export function opportunityDocument(v: Record<string, unknown>, id: string, workspaceId: string, now: Date): OpportunityDocument {
  const stage = (v.stage as OpportunityStage | undefined) ?? 'prospecting';
  const at = `${now.toISOString().slice(0, 19)}Z`;
  const opportunity: OpportunityDocument = {
    id,
    workspaceId,
    externalId: (v.externalId as string | null | undefined) ?? null,
    name: v.name as string,
    searchText: '',
    accountId: v.accountId as string,
    value: (v.value as number | undefined) ?? 0,
    stage,
    probability: (v.probability as number | undefined) ?? STAGE_PROBABILITY[stage],
    closeDate: (v.closeDate as string | null | undefined) ?? null,
    closedDate: (v.closedDate as string | null | undefined) ?? (isClosed(stage) ? dateOf(now) : null),
    lossReason: (v.lossReason as string | null | undefined) ?? null,
    assignedTo: (v.assignedTo as string | null | undefined) ?? null,
    source: (v.source as string | undefined) ?? '',
    contactIds: (v.contactIds as string[] | undefined) ?? [],
    description: (v.description as string | undefined) ?? '',
    customFields: {},
    createdAt: at,
    updatedAt: at,
  };
  opportunity.searchText = opportunitySearchText(opportunity);
  return opportunity;
}

export function opportunityChanges(current: OpportunityDocument, input: OpportunityInput, now: Date): Partial<OpportunityDocument> {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, OPPORTUNITY_FIELDS, OPPORTUNITY_READ_ONLY, input.references, errors, 'update');
  errors.throwIfAny();
  const changes: Partial<OpportunityDocument> = {
    ...(v as Partial<OpportunityDocument>),
    ...customValueChanges(current, v, 'opportunity', input.references.customFields),
    updatedAt: `${now.toISOString().slice(0, 19)}Z`,
  };
  const stage = v.stage as OpportunityStage | undefined;
  if (stage !== undefined && stage !== current.stage) {
    if (!('probability' in v)) changes.probability = STAGE_PROBABILITY[stage];
    if (isClosed(stage) && !('closedDate' in v)) changes.closedDate = dateOf(now);
    // Reopening clears the close bookkeeping unless the client says otherwise.
    if (!isClosed(stage) && isClosed(current.stage) && !('closedDate' in v)) changes.closedDate = null;
  }
  if ('name' in changes || 'customFields' in changes) {
    const next = { ...current, ...changes };
    changes.searchText = opportunitySearchText(next, searchableValues(next.customFields, input.references.customFields));
  }
  return changes;
}
