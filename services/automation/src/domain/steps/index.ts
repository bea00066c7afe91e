/** Each step type's config rules, by type: a new step type is one file here and one line below. */
import type { FieldErrorList } from '@crm/observability';
import type { RecordType, Step, StepType } from '../model';
import { assignUser } from './assign-user';
import { createTask } from './create-task';
import { sendEmail } from './send-email';
import { sendNotification } from './send-notification';
import type { StepValidator } from './step-validator';
import { wait } from './wait';

export const STEP_VALIDATORS: Record<StepType, StepValidator> = {
  send_email: sendEmail,
  wait,
  create_task: createTask,
  assign_user: assignUser,
  send_notification: sendNotification,
};

/** The step's config with only its own keys and trimmed texts, or undefined when a check failed (each failure added to `errors`). */
export function checkStepConfig(
  type: StepType,
  config: Record<string, unknown>,
  at: string,
  recordType: RecordType | undefined,
  errors: FieldErrorList,
): Step['config'] | undefined {
  const validator = STEP_VALIDATORS[type];
  const keys = [...validator.required, ...validator.optional];
  const before = errors.size;
  for (const key of Object.keys(config)) if (!keys.includes(key)) errors.add(`${at}.${key}`, 'Unknown field.');
  validator.check(config, at, recordType, errors);
  if (errors.size !== before) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (config[key] !== undefined) out[key] = config[key];
  for (const key of validator.trimmed ?? []) if (typeof out[key] === 'string') out[key] = (out[key] as string).trim();
  return out as unknown as Step['config'];
}
