/**
 * Rate limits. Authenticated calls count against their workspace's per-minute budget (by plan;
 * users and keys of a workspace share it). Everything else is counted per client address: an
 * anonymous budget for calls without a valid credential, and a tighter one for login, refresh and
 * signup, with login also counted per (address, email) to slow password guessing: an attacker
 * elsewhere can spend only their own budget for an account, never lock its owner out.
 * The client address is the socket's peer, or what a trusted proxy (TRUSTED_PROXIES) says it is.
 * Every response carries X-RateLimit-Limit/Remaining/Reset; a refusal is 429 with Retry-After.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { DomainError, type Logger } from '@crm/observability';
import type { LimitDecision, RateLimitCounter } from '@crm/rate-limit';
import { PLAN_RATE_LIMITS } from '@crm/vocabulary';

export const WINDOW_SECONDS = 60;

/** Per-minute budgets by plan (libs/vocabulary); enterprise carries its own number from auth. */
const PLAN_LIMITS: Readonly<Record<string, number>> = PLAN_RATE_LIMITS;
const DEFAULT_PLAN_LIMIT = PLAN_RATE_LIMITS.starter;

export interface RateLimitBudgets {
  /** Requests per minute per client address without a valid credential. */
  anonymousPerMinute: number;
  /** Login, refresh and signup per client address. */
  sessionPerAddressPerMinute: number;
  /** Login attempts per email from one client address. */
  loginPerEmailPerMinute: number;
}

export const DEFAULT_BUDGETS: RateLimitBudgets = {
  anonymousPerMinute: 60,
  sessionPerAddressPerMinute: 20,
  loginPerEmailPerMinute: 10,
};

export function setRateLimitHeaders(res: Response, decision: LimitDecision): void {
  res.locals.rateLimit = decision;
  res.setHeader('X-RateLimit-Limit', String(decision.limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, decision.remaining)));
  res.setHeader('X-RateLimit-Reset', String(decision.resetAt));
}

function tooManyRequests(res: Response, decision: LimitDecision): DomainError {
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(decision.retryAfterSeconds))));
  return new DomainError(
    'rate_limited',
    `Request was throttled. Expected available in ${Math.max(1, Math.ceil(decision.retryAfterSeconds))} seconds.`,
  );
}

export function limitFor(plan: string, rateLimitPerMinute: number): number {
  if (rateLimitPerMinute > 0) return rateLimitPerMinute;
  return PLAN_LIMITS[plan] ?? DEFAULT_PLAN_LIMIT;
}

function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

export class RateLimiter {
  constructor(
    private readonly counter: RateLimitCounter,
    private readonly logger: Logger,
    readonly budgets: RateLimitBudgets = DEFAULT_BUDGETS,
  ) {}

  /** Counts one request; a counter failure lets the request through (and is logged), never a 500. */
  private async consume(key: string, limit: number): Promise<LimitDecision | undefined> {
    try {
      return await this.counter.consume(key, limit, WINDOW_SECONDS);
    } catch (error) {
      this.logger.warn({ err: error, key }, 'rate-limit counter failed; letting the request through');
      return undefined;
    }
  }

  /**
   * After authentication: the workspace budget for a caller, the anonymous budget otherwise.
   * A credential failure is passed on only after counting, so the 401 carries the headers too.
   */
  workspaceLimit(): RequestHandler {
    return async (req, res, next) => {
      const caller = res.locals.caller;
      const decision = caller
        ? await this.consume(`ws:${caller.workspaceId}`, limitFor(caller.plan, caller.rateLimitPerMinute))
        : await this.consume(`anon:${clientAddress(req)}`, this.budgets.anonymousPerMinute);
      if (decision) {
        setRateLimitHeaders(res, decision);
        if (!decision.allowed) return next(tooManyRequests(res, decision));
      }
      next(res.locals.authFailure);
    };
  }

  /** Public reads (the OpenAPI document): the anonymous budget of the client address. */
  addressLimit(): RequestHandler {
    return async (req, res, next) => {
      const decision = await this.consume(`anon:${clientAddress(req)}`, this.budgets.anonymousPerMinute);
      if (decision) {
        setRateLimitHeaders(res, decision);
        if (!decision.allowed) return next(tooManyRequests(res, decision));
      }
      next();
    };
  }

  /** Login, refresh and signup: per client address. */
  sessionLimit(): RequestHandler {
    return async (req, res, next) => {
      const decision = await this.consume(`session:${clientAddress(req)}`, this.budgets.sessionPerAddressPerMinute);
      if (decision) {
        setRateLimitHeaders(res, decision);
        if (!decision.allowed) return next(tooManyRequests(res, decision));
      }
      next();
    };
  }

  /**
   * Login: per (address, email) as well (after the body is parsed): one address guesses at one
   * account more slowly still, and its failures never spend the budget of the account's owner.
   */
  async loginEmailLimit(req: Request, res: Response, email: string): Promise<void> {
    const digest = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    const decision = await this.consume(`login-email:${clientAddress(req)}:${digest}`, this.budgets.loginPerEmailPerMinute);
    if (!decision) return;
    // Show whichever budget is closer to running out.
    const shown = res.locals.rateLimit;
    if (!shown || !decision.allowed || decision.remaining < shown.remaining) setRateLimitHeaders(res, decision);
    if (!decision.allowed) throw tooManyRequests(res, decision);
  }

  /**
   * For responses that ended before any limiter ran (an unknown API version, a plain-HTTP
   * refusal): count them in the anonymous budget so they carry the headers as well.
   */
  async ensureHeaders(req: Request, res: Response): Promise<void> {
    if (res.locals.rateLimit || res.headersSent) return;
    const decision = await this.consume(`anon:${clientAddress(req)}`, this.budgets.anonymousPerMinute);
    if (decision) setRateLimitHeaders(res, decision);
  }
}
