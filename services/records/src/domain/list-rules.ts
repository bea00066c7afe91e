/**
 * What list calls accept: paging, `ordering` per kind, and filter values. Bad values are a 400
 * (invalid_argument), never an empty page. The store turns the criteria into its query model.
 */
import { DomainError } from '@crm/observability';
import { MAX_SEARCH_LENGTH, PAGING, PLAIN_ORDERINGS, type FilterRecordKind } from '@crm/vocabulary';
import { parseIsoDate, parseIsoTimestamp } from './clock';
import { ACCOUNT_STAGES, CONTACT_STAGES, LEAD_STATUSES, OPPORTUNITY_STAGES } from './model';

export type ListKind = FilterRecordKind;

export interface Page {
  offset: number;
  limit: number;
}

export interface Ordering {
  field: string;
  direction: 'asc' | 'desc';
}

export function page(offset: number | undefined, limit: number | undefined): Page {
  const o = offset ?? 0;
  const l = limit ?? 0;
  if (!Number.isInteger(o) || o < 0) throw DomainError.invalid('offset must be a non-negative integer.');
  if (!Number.isInteger(l) || l < 0) throw DomainError.invalid('limit must be a positive integer.');
  return { offset: o, limit: l === 0 ? PAGING.defaultLimit : Math.min(l, PAGING.maxLimit) };
}

/** Whether the kind's list orders by the field through the store's own ordering (no filter language). */
export function isPlainOrdering(kind: ListKind, field: string): boolean {
  return PLAIN_ORDERINGS[kind].includes(field);
}

export function ordering(kind: ListKind, value: string | undefined): Ordering {
  if (!value) return { field: 'createdAt', direction: 'desc' };
  const descending = value.startsWith('-');
  const field = descending ? value.slice(1) : value;
  if (!PLAIN_ORDERINGS[kind].includes(field)) {
    throw DomainError.invalid(`ordering must be one of ${PLAIN_ORDERINGS[kind].join(', ')} (prefix - for descending).`);
  }
  return { field, direction: descending ? 'desc' : 'asc' };
}

export function search(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.length > MAX_SEARCH_LENGTH) throw DomainError.invalid(`search must be at most ${MAX_SEARCH_LENGTH} characters.`);
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

const CHOICES = {
  contactStage: CONTACT_STAGES,
  leadStatus: LEAD_STATUSES,
  accountStage: ACCOUNT_STAGES,
  opportunityStage: OPPORTUNITY_STAGES,
} as const;

export function choiceFilter(name: string, value: string | undefined, set: keyof typeof CHOICES): string | undefined {
  if (!value) return undefined;
  if (!(CHOICES[set] as readonly string[]).includes(value)) throw DomainError.invalid(`${name}: "${value}" is not a valid choice.`);
  return value;
}

export function timestampFilter(name: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  const parsed = parseIsoTimestamp(value);
  if (!parsed) throw DomainError.invalid(`${name} must be an ISO 8601 date or timestamp.`);
  return parsed;
}

export function dateFilter(name: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  const parsed = parseIsoDate(value);
  if (!parsed) throw DomainError.invalid(`${name} must be an ISO 8601 date.`);
  return parsed;
}

export function numberFilter(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^-?\d+(\.\d+)?$/.test(value.trim())) throw DomainError.invalid(`${name} must be a number.`);
  return Number(value);
}

export function textFilter(value: string | undefined): string | undefined {
  return value ? value : undefined;
}
