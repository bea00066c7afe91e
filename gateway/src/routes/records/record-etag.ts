/**
 * Optimistic concurrency on single records (contract-decisions.md, "Idempotency, concurrency,
 * cursors"): the record's version as a strong ETag, If-None-Match on reads (304), If-Match on
 * updates and deletes (the records service refuses a stale one: 412). If-Match compares strongly
 * (RFC 9110 §13.1.1): a weak tag, or a tag that is no version of ours, never matches, so 412.
 */
import type { Request, Response } from 'express';
import { DomainError } from '@crm/observability';
import type { OpenApiOperation } from '../../openapi/operation';
import { RATE_LIMIT_HEADERS } from '../../openapi/operation';

/** Quoted entity tags, each optionally weak, separated by commas (RFC 9110 §8.8.3). */
const TAG = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*/y;

interface EntityTag {
  weak: boolean;
  opaque: string;
}

function parseTags(header: string): EntityTag[] | undefined {
  const tags: EntityTag[] = [];
  TAG.lastIndex = 0;
  while (TAG.lastIndex < header.length) {
    const match = TAG.exec(header);
    if (!match) return undefined;
    tags.push({ weak: match[1] !== undefined, opaque: match[2]! });
    if (TAG.lastIndex < header.length) {
      if (header[TAG.lastIndex] !== ',') return undefined;
      TAG.lastIndex++;
    }
  }
  return tags.length > 0 ? tags : undefined;
}

export function etagOf(record: { version?: unknown }): string {
  return `"${Number(record.version ?? 0)}"`;
}

/**
 * The version an If-Match asks for; undefined when there is none (or `*`: any current record).
 * A tag that can never match (weak, not a version) is -1, which no record is at: 412.
 */
export function expectedVersion(req: Request): number | undefined {
  const header = req.get('if-match');
  if (header === undefined || header.trim() === '*') return undefined;
  const tags = parseTags(header);
  if (!tags) throw DomainError.invalid('If-Match must be an entity tag as the ETag header gave it, such as "3".');
  const strong = tags.filter((t) => !t.weak && /^\d{1,9}$/.test(t.opaque));
  if (strong.length > 1) throw DomainError.invalid('If-Match may name one entity tag only.');
  return strong.length === 1 ? Number(strong[0]!.opaque) : -1;
}

/** Answers 304 (no body) when If-None-Match names the record's current tag (weak comparison) or is `*`. */
export function answeredNotModified(req: Request, res: Response, record: { version?: unknown }): boolean {
  const etag = etagOf(record);
  res.setHeader('ETag', etag);
  const header = req.get('if-none-match');
  if (header === undefined) return false;
  const matches = header.trim() === '*' || (parseTags(header) ?? []).some((t) => `"${t.opaque}"` === etag);
  if (matches) res.status(304).end();
  return matches;
}

// ---------------------------------------------------------------- OpenAPI

const ETAG_HEADER = {
  ETag: { description: 'The record\'s version as a strong entity tag, e.g. `"3"`; changes with every change.', schema: { type: 'string' } },
};

export const IF_MATCH_PARAMETER = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The ETag last seen; the write applies only if the record is still at that version, otherwise 412. A weak tag never matches (412); a malformed header, or more than one tag, is 400. Without it the write is unconditional.',
  schema: { type: 'string' },
};

export const IF_NONE_MATCH_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag already held; when it is still current the answer is 304 with no body.',
  schema: { type: 'string' },
};

/** Adds the ETag header to the operation's answers with these statuses. */
export function withEtag(op: OpenApiOperation, ...statuses: number[]): OpenApiOperation {
  const responses = op.responses as Record<string, { headers?: Record<string, unknown> }>;
  for (const status of statuses) responses[String(status)]!.headers = { ...responses[String(status)]!.headers, ...ETAG_HEADER };
  return op;
}

/** The 304 of a conditional read. */
export function withNotModified(op: OpenApiOperation): OpenApiOperation {
  const responses = op.responses as Record<string, unknown>;
  responses['304'] = {
    description: 'Not modified: If-None-Match names the current version. No body.',
    headers: { ...RATE_LIMIT_HEADERS, ...ETAG_HEADER },
  };
  return op;
}
