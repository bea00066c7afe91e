import { DomainError } from '@crm/observability';
import { PLAN_RATE_LIMITS, PLANS } from '@crm/vocabulary';
import type { Plan } from './model';

// Plans and their requests per minute for a whole workspace are the CRM's vocabulary (libs/vocabulary).

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
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
      rateLimitPerMinute: [`Only the enterprise plan takes a custom limit; ${plan} allows ${PLAN_RATE_LIMITS[plan]}.`],
    });
  }
  return { plan, rateLimitPerMinute: PLAN_RATE_LIMITS[plan] };
}
