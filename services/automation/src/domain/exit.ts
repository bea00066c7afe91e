/**
 * A run's exit: the first of its exit conditions that holds for the record, kept on the execution
 * log with when it was found to hold.
 */
import { conditionHolds } from './conditions';
import type { Condition, RunExit } from './model';

/** The first exit condition that holds for `record`, or null (an empty list never exits). */
export function exitMet(conditions: Condition[], record: Record<string, unknown>, metAt: string): RunExit | null {
  const condition = conditions.find((candidate) => conditionHolds(candidate, record));
  return condition ? { condition, metAt } : null;
}

export function exitReason(exit: RunExit): string {
  const { field, operator, value } = exit.condition;
  return `Exit condition met: ${field} ${operator}${value === undefined ? '' : ` ${JSON.stringify(value)}`}.`;
}
