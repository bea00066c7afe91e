/**
 * Loop protection. A rule's steps write to records (assign_user updates the owner; create_task
 * adds a task), and records publish events for some writes, so a rule could in principle enroll a
 * record again through its own actions, or two rules could feed each other. None of today's steps
 * changes a field that raises a trigger (status, stage, creation), but rather than rely on that,
 * every write automation makes carries a correlation id naming the rule and the chain depth, and
 * the engine bounds what such events may start:
 * - an event caused by rule R never enrolls a record in R again (a rule cannot re-trigger itself);
 * - a chain of rules triggering rules stops after MAX_CHAIN_DEPTH hops.
 */

export const MAX_CHAIN_DEPTH = 3;

const PREFIX = 'automation';

export interface Cause {
  /** 0 for a change a person or an integration made; n for one made n rules down a chain. */
  depth: number;
  /** The rules along the chain that caused the event. */
  ruleIds: string[];
}

/** The correlation id automation's writes for one enrollment carry (becomes the events' correlationId). */
export function automationCorrelationId(cause: Cause, ruleId: string, executionLogId: string): string {
  return [PREFIX, String(cause.depth + 1), [...cause.ruleIds, ruleId].join('+'), executionLogId].join(':');
}

/** What caused an event, read from its correlation id; a person's or integration's change is depth 0. */
export function causeOf(correlationId: string | undefined): Cause {
  const parts = (correlationId ?? '').split(':');
  if (parts[0] !== PREFIX || parts.length < 4) return { depth: 0, ruleIds: [] };
  const depth = Number(parts[1]);
  if (!Number.isInteger(depth) || depth < 1) return { depth: 0, ruleIds: [] };
  return { depth, ruleIds: parts[2]!.split('+').filter(Boolean) };
}

/** Why an event may not enroll a record in a rule, or null when it may. */
export function loopRefusal(cause: Cause, ruleId: string): string | null {
  if (cause.ruleIds.includes(ruleId)) return 'The event was caused by this rule (or a chain through it); a rule never re-triggers itself.';
  if (cause.depth >= MAX_CHAIN_DEPTH)
    return `The event comes from a chain of ${cause.depth} automation rules; chains stop at ${MAX_CHAIN_DEPTH}.`;
  return null;
}
