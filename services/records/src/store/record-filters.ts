/**
 * What each list keeps, in the records' words (checked values: domain/list-rules.ts reads them
 * from the request), and the store conditions they become.
 */
import type { Condition } from '@crm/store';
import type { RecordType } from '../domain/model';

export interface ContactFilter {
  externalId?: string;
  accountId?: string;
  stage?: string;
  assignedTo?: string;
  createdFrom?: string;
  createdTo?: string;
  /** Contacts carrying every one of these tags. */
  tags?: string[];
}

export interface LeadFilter {
  externalId?: string;
  status?: string;
  source?: string;
  assignedTo?: string;
  createdFrom?: string;
  createdTo?: string;
}

export interface AccountFilter {
  externalId?: string;
  stage?: string;
  industry?: string;
  assignedTo?: string;
}

export interface OpportunityFilter {
  externalId?: string;
  stage?: string;
  accountId?: string;
  assignedTo?: string;
  closeFrom?: string;
  closeTo?: string;
  valueMin?: number;
  valueMax?: number;
}

export interface RecordFilters {
  contact: ContactFilter;
  lead: LeadFilter;
  account: AccountFilter;
  opportunity: OpportunityFilter;
}

export function filterConditions<T extends RecordType>(type: T, filter: RecordFilters[T]): Condition[] {
  return [...equal('externalId', filter.externalId), ...kindConditions(type, filter)];
}

function kindConditions<T extends RecordType>(type: T, filter: RecordFilters[T]): Condition[] {
  switch (type) {
    case 'contact':
      return contactConditions(filter as ContactFilter);
    case 'lead':
      return leadConditions(filter as LeadFilter);
    case 'account':
      return accountConditions(filter as AccountFilter);
    default:
      return opportunityConditions(filter as OpportunityFilter);
  }
}

function contactConditions(f: ContactFilter): Condition[] {
  return [
    ...equal('accountId', f.accountId),
    ...equal('stage', f.stage),
    ...equal('assignedTo', f.assignedTo),
    ...between('createdAt', f.createdFrom, f.createdTo),
    ...(f.tags ?? []).map((tag): Condition => ({ field: 'tags', op: 'has', value: tag })),
  ];
}

function leadConditions(f: LeadFilter): Condition[] {
  return [
    ...equal('status', f.status),
    ...equal('source', f.source),
    ...equal('assignedTo', f.assignedTo),
    ...between('createdAt', f.createdFrom, f.createdTo),
  ];
}

function accountConditions(f: AccountFilter): Condition[] {
  return [...equal('stage', f.stage), ...equal('industry', f.industry), ...equal('assignedTo', f.assignedTo)];
}

function opportunityConditions(f: OpportunityFilter): Condition[] {
  return [
    ...equal('stage', f.stage),
    ...equal('accountId', f.accountId),
    ...equal('assignedTo', f.assignedTo),
    ...between('closeDate', f.closeFrom, f.closeTo),
    ...between('value', f.valueMin, f.valueMax),
  ];
}

/** Nothing for an empty or missing value: an unset filter keeps every record. */
export function equal(field: string, value: string | undefined): Condition[] {
  return value ? [{ field, op: 'eq', value }] : [];
}

function between(field: string, from: string | number | undefined, to: string | number | undefined): Condition[] {
  const conditions: Condition[] = [];
  if (from !== undefined && from !== '') conditions.push({ field, op: 'gte', value: from });
  if (to !== undefined && to !== '') conditions.push({ field, op: 'lte', value: to });
  return conditions;
}
