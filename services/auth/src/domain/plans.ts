import { DomainError } from '@crm/observability';
import type { Plan } from './model';

/** Requests per minute for a whole workspace, by plan; enterprise workspaces carry their own. */
export const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, number> = {
  starter: 100,
  growth: 300,
  business: 600,
};

export const PLANS: Plan[] = ['starter', 'growth', 'business', 'enterprise'];

export function isPlan(value: string): value is Plan {
  return (PLANS as string[]).includes(value);
}

/**
 * A plan and the per-minute limit it gives. `rateLimitPerMinute` is required for enterprise and
 * refused for the others (their limit is fixed), so an operator's typo never goes unnoticed.
 */
export function resolvePlan(plan: string, rateLimitPerMinute?: number): { plan: Plan; rateLimitPerMinute: number } {
  if (!isPlan(plan)) throw DomainError.validation({ plan: [`"${plan}" is not a valid choice; use one of ${PLANS.join(', ')}.`] });
  if (plan === 'enterprise') {
    if (rateLimitPerMinute === undefined || !Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute <= 0) {
      throw DomainError.validation({
        rateLimitPerMinute: ['The enterprise plan needs its own positive whole number of requests per minute.'],
      });
    }
    return { plan, rateLimitPerMinute };
  }
  if (rateLimitPerMinute !== undefined) {
    throw DomainError.validation({
      rateLimitPerMinute: [`Only the enterprise plan takes a custom limit; ${plan} allows ${PLAN_LIMITS[plan]}.`],
    });
  }
  return { plan, rateLimitPerMinute: PLAN_LIMITS[plan] };
}
