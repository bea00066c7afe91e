import { checkText, checkUserRef, isInteger, STEP_LIMITS, STEP_MESSAGES } from './step-checks';
import type { StepValidator } from './step-validator';

/** A task named with placeholders, for the record's owner or a user, due 0 to 365 days later. */
export const createTask: StepValidator = {
  required: ['name', 'assignTo', 'dueDays'],
  optional: [],
  trimmed: ['name'],
  check(config, at, recordType, errors) {
    checkText(config.name, `${at}.name`, recordType, errors, STEP_LIMITS.name);
    checkUserRef(config.assignTo, `${at}.assignTo`, errors);
    const dueDays = config.dueDays;
    if (dueDays === undefined || dueDays === null) errors.add(`${at}.dueDays`, STEP_MESSAGES.required);
    else if (!isInteger(dueDays) || dueDays < 0 || dueDays > STEP_LIMITS.dueDays)
      errors.add(`${at}.dueDays`, `Expected a whole number from 0 to ${STEP_LIMITS.dueDays}.`);
  },
};
