/**
 * A paginated list's query string: paging (`page`, or `offset` with `limit`, or, on lists that
 * offer it, a `cursor`), the filters a list names, and its answer: `{count, next, previous, results}`
 * (with `nextCursor` on cursor lists) whose links are absolute URLs on the caller's origin that keep
 * every filter, or `{count, results, nextCursor}` for the lists the spec answers with count and
 * results only. Values reach the service only as plain strings: a
 * repeated parameter or a bracketed name (`stage[$ne]=x`) is a 400, never an operator.
 */
import type { Request } from 'express';
import { DomainError } from '@crm/observability';
import { CUSTOM_FIELD_NAME_PATTERN, CUSTOM_FIELDS_PREFIX, PAGING } from '@crm/vocabulary';
import type { GatewayConfig } from '../../config';

export const DEFAULT_LIMIT = PAGING.defaultLimit;
export const MAX_LIMIT = PAGING.maxLimit;
/** Offsets travel as int32. */
const MAX_OFFSET = PAGING.maxOffset;
const CURSOR = /^[A-Za-z0-9_.-]{1,2000}$/;
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

export interface ListQuery<F extends string> {
  filters: Partial<Record<F, string>>;
  /**
   * The parameters named by a prefix the list accepts (`customFields.<key>`), by their full name:
   * their names are the workspace's, so the list cannot name them one by one.
   */
  prefixed: Record<string, string>;
  offset: number;
  limit: number;
  /** How the client paged, so the links page the same way. */
  mode: 'page' | 'offset' | 'cursor';
  /** The `nextCursor` of an earlier page (cursor lists only); opaque here, checked by the service. */
  cursor?: string;
  /** Whether the client named a limit (the links then carry the limit served). */
  limitGiven: boolean;
}

function positiveInteger(name: string, value: string, min: number): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < min) {
    throw DomainError.invalid(`${name} must be ${min === 0 ? 'a non-negative' : 'a positive'} integer.`);
  }
  return Number(value);
}

/**
 * Reads the query string: every parameter a single plain string; `filters` are the names this
 * list accepts besides paging (other names are ignored, as most APIs do, except bracketed ones).
 */
export function readListQuery<F extends string>(
  req: Request,
  filters: readonly F[],
  options: { cursor?: boolean; prefixes?: readonly string[] } = {},
): ListQuery<F> {
  const query = req.query as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (/[[\]]/.test(name)) throw DomainError.invalid(`Query parameter "${name}" is not supported: parameters take plain values.`);
    if (typeof value !== 'string') throw DomainError.invalid(`Query parameter "${name}" must be given once, as a plain value.`);
    values[name] = value;
  }
  const limitGiven = values.limit !== undefined;
  const limit = limitGiven ? Math.min(positiveInteger('limit', values.limit!, 1), MAX_LIMIT) : DEFAULT_LIMIT;
  if (values.page !== undefined && values.offset !== undefined) throw DomainError.invalid('Use either page or offset, not both.');
  let offset = 0;
  let mode: ListQuery<F>['mode'] = 'page';
  if (values.offset !== undefined) {
    offset = positiveInteger('offset', values.offset, 0);
    mode = 'offset';
  } else if (values.page !== undefined) {
    offset = (positiveInteger('page', values.page, 1) - 1) * limit;
  }
  if (offset > MAX_OFFSET) throw DomainError.invalid('page or offset is out of range.');
  const cursor = options.cursor ? values.cursor : undefined;
  if (cursor !== undefined) {
    if (values.page !== undefined || values.offset !== undefined) throw DomainError.invalid('Use either cursor or page/offset, not both.');
    if (!CURSOR.test(cursor)) throw DomainError.invalid('cursor was not made by this list.');
    mode = 'cursor';
  }
  const chosen: Partial<Record<F, string>> = {};
  for (const name of filters) if (values[name] !== undefined && values[name] !== '') chosen[name] = values[name];
  const prefixed = prefixedParameters(values, options.prefixes ?? []);
  return { filters: chosen, prefixed, offset, limit, mode, limitGiven, ...(cursor !== undefined ? { cursor } : {}) };
}

/** The parameters (already plain strings) whose names start with one of `prefixes`, blanks dropped as other filters' are. */
export function prefixedParameters(values: Record<string, string>, prefixes: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value !== '' && prefixes.some((prefix) => name.startsWith(prefix))) found[name] = value;
  }
  return found;
}

/** PUBLIC_BASE_URL when set, else the request's Host over https (the API is HTTPS only). */
function origin(req: Request, config: GatewayConfig): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const host = req.get('host') ?? '';
  return `https://${HOST.test(host) ? host : 'localhost'}`;
}

function link<F extends string>(req: Request, config: GatewayConfig, list: ListQuery<F>, at: number | { cursor: string }): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(list.filters)) if (typeof value === 'string') params.set(name, value);
  for (const [name, value] of Object.entries(list.prefixed)) params.set(name, value);
  if (list.limitGiven) params.set('limit', String(list.limit));
  if (typeof at === 'object') params.set('cursor', at.cursor);
  else if (list.mode === 'offset') params.set('offset', String(at));
  else params.set('page', String(Math.floor(at / list.limit) + 1));
  // The path the caller used (with /api/v1 if it had it), without its query.
  const path = req.originalUrl.split('?')[0]!;
  return `${origin(req, config)}${path}?${params.toString()}`;
}

export interface Paginated<T> {
  /** Left out of cursor pages, which count nothing. */
  count?: number;
  next: string | null;
  previous: string | null;
  /** Cursor lists only: the cursor of the next page, null on the last. */
  nextCursor?: string | null;
  results: T[];
}

/**
 * The answer of a page. Cursor lists pass the service's `nextCursor` ('' on the last page): their
 * answers carry it, and a cursor page has no count, no previous link and a cursor `next` link.
 */
/** A list that pages by offset: its cursor names the next offset (`o<n>`), so cursor clients walk it too. */
const OFFSET_CURSOR = /^o(\d{1,9})$/;

/** The offset a page of an offset-paged list starts at, from `page`/`offset` or its cursor. */
export function listOffset<F extends string>(list: ListQuery<F>): number {
  if (list.mode !== 'cursor') return list.offset;
  const offset = OFFSET_CURSOR.exec(list.cursor ?? '');
  if (!offset) throw DomainError.invalid('cursor was not made by this list.');
  return Number(offset[1]);
}

/** The cursor of the page after this one of an offset-paged list ('' on the last page). */
export function nextOffsetCursor(offset: number, limit: number, total: number): string {
  return offset + limit < total ? `o${offset + limit}` : '';
}

export function paginated<T, F extends string>(
  req: Request,
  config: GatewayConfig,
  list: ListQuery<F>,
  total: number,
  results: T[],
  nextCursor?: string,
): Paginated<T> {
  if (list.mode === 'cursor') {
    return {
      next: nextCursor ? link(req, config, list, { cursor: nextCursor }) : null,
      previous: null,
      nextCursor: nextCursor || null,
      results,
    };
  }
  const hasNext = list.offset + list.limit < total;
  const hasPrevious = list.offset > 0;
  return {
    count: total,
    next: hasNext ? link(req, config, list, list.offset + list.limit) : null,
    previous: hasPrevious ? link(req, config, list, Math.max(0, list.offset - list.limit)) : null,
    ...(nextCursor !== undefined ? { nextCursor: nextCursor || null } : {}),
    results,
  };
}

/** The spec's "count and results only" list: `nextCursor` is the one addition (contract decisions). */
export interface CountedList<T> {
  /** Left out of cursor pages, which count nothing. */
  count?: number;
  results: T[];
  nextCursor: string | null;
}

/**
 * The answer of a list the spec gives as count and results only (rules, templates, execution logs,
 * an account's contacts): no links, the service's `nextCursor` ('' on the last page) as null.
 */
export function countedList<T, F extends string>(list: ListQuery<F>, total: number, results: T[], nextCursor: string): CountedList<T> {
  return { ...(list.mode === 'cursor' ? {} : { count: total }), results, nextCursor: nextCursor || null };
}

/** The `tags` filter: comma-separated names, blanks dropped. */
export function splitTags(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}

/**
 * `?customFields.<key>=<value>` exact filters → the list request's `custom_field_equals`: JSON text
 * of key → the query's text value, '' for none. The records service reads each value by its
 * field's type and refuses unknown keys (400 keyed `customFields.<key>`).
 */
export function customFieldEquals(parameters: Record<string, string>): string {
  const equals: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters)) {
    if (name.startsWith(CUSTOM_FIELDS_PREFIX)) equals[name.slice(CUSTOM_FIELDS_PREFIX.length)] = value;
  }
  return Object.keys(equals).length > 0 ? JSON.stringify(equals) : '';
}

/**
 * The custom field filters as one OpenAPI parameter: an object serialised `form`, exploded, so
 * each of its properties is a query parameter of its own name (`?customFields.plan=pro`), the
 * names matching CUSTOM_FIELD_NAME_PATTERN.
 */
export function customFieldFiltersParameter(): Record<string, unknown> {
  return {
    name: 'customFields',
    in: 'query',
    required: false,
    style: 'form',
    explode: true,
    description: CUSTOM_FIELD_FILTERS_DESCRIPTION,
    schema: {
      type: 'object',
      propertyNames: { pattern: CUSTOM_FIELD_NAME_PATTERN },
      additionalProperties: { type: 'string' },
    },
  };
}

/** How the custom field filters are written, for the list operations' descriptions. */
export const CUSTOM_FIELD_FILTERS_DESCRIPTION =
  '`?customFields.<key>=<value>`: records whose custom field `<key>` (/api/settings/custom-fields/) equals the value, read by the field\'s type (a number, `true`/`false`, `YYYY-MM-DD`, a timestamp; a multiselect holding it); several are ANDed. An unknown key or a value of the wrong type: `400 {"customFields.<key>": [...]}`.';
