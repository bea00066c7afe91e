import { checkText, checkUserRef, STEP_MESSAGES } from './step-checks';
import type { StepValidator } from './step-validator';

/** A message with placeholders to a non-empty list of users ("assigned_user" or ids). */
export const sendNotification: StepValidator = {
  required: ['recipients', 'message'],
  optional: [],
  trimmed: ['message'],
  check(config, at, recordType, errors) {
    const recipients = config.recipients;
    if (recipients === undefined || recipients === null) errors.add(`${at}.recipients`, STEP_MESSAGES.required);
    else if (!Array.isArray(recipients) || recipients.length === 0)
      errors.add(`${at}.recipients`, 'Expected a non-empty list of recipients.');
    else recipients.forEach((recipient, index) => checkUserRef(recipient, `${at}.recipients.${index}`, errors));
    checkText(config.message, `${at}.message`, recordType, errors);
  },
};
