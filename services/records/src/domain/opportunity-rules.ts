/**
 * What an opportunity accepts, and the pipeline rules: probability follows the stage unless given,
 * and entering closed_won/closed_lost sets closedDate to today unless given.
 */
import type { FieldErrors } from '@crm/observability';
import { dateOf } from './clock';
import { OPPORTUNITY_FIELDS, OPPORTUNITY_STAGES, apiTimestamp } from '@crm/vocabulary';
import { fieldTableOf, readOnlyFieldsOf, withCreatedValues } from './built-in-rules';
import { checkFields, FieldErrorList, type Body, type KnownReferences } from './field-rules';
import type { OpportunityDocument, OpportunityStage } from './model';
import { changesSearchText, opportunitySearchText } from './search-text';
import { customValueChanges, newCustomFields, searchableValues } from './custom-field-values';

export const OPPORTUNITY_RULES = fieldTableOf(OPPORTUNITY_FIELDS, 'opportunity');

const READ_ONLY = readOnlyFieldsOf(OPPORTUNITY_FIELDS);

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
  const v = checkFields(input.body, OPPORTUNITY_RULES, READ_ONLY, input.references, errors, 'create');
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
  const at = apiTimestamp(now);
  const opportunity = withCreatedValues<OpportunityDocument>(
    {
      id,
      workspaceId,
      name: v.name as string,
      searchText: '',
      accountId: v.accountId as string,
      customFields: {},
      createdAt: at,
      updatedAt: at,
    },
    OPPORTUNITY_FIELDS,
    v,
  );
  // No defaults of their own: the stage's probability, and today when the stage is closed.
  opportunity.probability = (v.probability as number | undefined) ?? STAGE_PROBABILITY[opportunity.stage];
  opportunity.closedDate = (v.closedDate as string | null | undefined) ?? (isClosed(opportunity.stage) ? dateOf(now) : null);
  opportunity.searchText = opportunitySearchText(opportunity);
  return opportunity;
}

export function opportunityChanges(current: OpportunityDocument, input: OpportunityInput, now: Date): Partial<OpportunityDocument> {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, OPPORTUNITY_RULES, READ_ONLY, input.references, errors, 'update');
  errors.throwIfAny();
  const changes: Partial<OpportunityDocument> = {
    ...(v as Partial<OpportunityDocument>),
    ...customValueChanges(current, v, 'opportunity', input.references.customFields),
    updatedAt: apiTimestamp(now),
  };
  const stage = v.stage as OpportunityStage | undefined;
  if (stage !== undefined && stage !== current.stage) {
    if (!('probability' in v)) changes.probability = STAGE_PROBABILITY[stage];
    if (isClosed(stage) && !('closedDate' in v)) changes.closedDate = dateOf(now);
    // Reopening clears the close bookkeeping unless the client says otherwise.
    if (!isClosed(stage) && isClosed(current.stage) && !('closedDate' in v)) changes.closedDate = null;
  }
  if (changesSearchText(OPPORTUNITY_FIELDS, changes)) {
    const next = { ...current, ...changes };
    changes.searchText = opportunitySearchText(next, searchableValues(next.customFields, input.references.customFields));
  }
  return changes;
}
