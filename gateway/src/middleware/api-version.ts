import type { RequestHandler } from 'express';
import { DomainError } from '@crm/observability';

const VERSIONED = /^\/api\/v(\d+)(?=\/|\?|$)/;

/**
 * `/api/v1/...` serves exactly what `/api/...` serves (v1 is the current version); any other
 * version segment is a 404 until that version exists.
 */
export function apiVersion(): RequestHandler {
  return (req, _res, next) => {
    const match = VERSIONED.exec(req.url);
    if (!match) return next();
    if (match[1] !== '1') return next(DomainError.notFound());
    req.url = `/api${req.url.slice(match[0].length)}`;
    next();
  };
}
