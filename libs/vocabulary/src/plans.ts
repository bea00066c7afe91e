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
