/** Workspace plans and the requests per minute each allows; enterprise workspaces carry their own limit. */

export const PLANS = ['starter', 'growth', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** The plan a new workspace starts on. */
export const DEFAULT_PLAN: Plan = 'starter';

export const PLAN_RATE_LIMITS: Record<Exclude<Plan, 'enterprise'>, number> = {
  starter: 100,
  growth: 300,
  business: 600,
};

/**
 * What a workspace may keep at once, by plan: webhook subscriptions and active automation rules
 * (a rule can still be created and edited past the cap; activating one more is refused), and the
 * emails automation sends a day (UTC). Past a cap the write is a 422 saying which cap; a send_email
 * step past the day's quota is logged as failed with that reason.
 */
export interface PlanQuotas {
  webhookSubscriptions: number;
  activeRules: number;
  emailsPerDay: number;
}

export const PLAN_QUOTAS: Record<Plan, PlanQuotas> = {
  starter: { webhookSubscriptions: 10, activeRules: 10, emailsPerDay: 500 },
  growth: { webhookSubscriptions: 50, activeRules: 50, emailsPerDay: 5_000 },
  business: { webhookSubscriptions: 200, activeRules: 200, emailsPerDay: 25_000 },
  enterprise: { webhookSubscriptions: 1_000, activeRules: 1_000, emailsPerDay: 100_000 },
};

/** The quotas of a plan as the caller context names it; an unknown or missing plan gets the default plan's. */
export function planQuotas(plan: string | undefined): PlanQuotas {
  return (PLANS as readonly string[]).includes(plan ?? '') ? PLAN_QUOTAS[plan as Plan] : PLAN_QUOTAS[DEFAULT_PLAN];
}
