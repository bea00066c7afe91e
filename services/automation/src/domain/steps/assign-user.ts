import { isMissing, isUserId, STEP_LIMITS, STEP_MESSAGES } from './step-checks';
import type { StepValidator } from './step-validator';

/** Round robin over distinct user ids. An empty list is a draft: activation refuses it (readinessProblems). */
export const assignUser: StepValidator = {
  required: ['mode', 'userIds'],
  optional: [],
  check(config, at, _recordType, errors) {
    if (isMissing(config.mode)) errors.add(`${at}.mode`, STEP_MESSAGES.required);
    else if (config.mode !== 'round_robin') errors.add(`${at}.mode`, STEP_MESSAGES.choice(config.mode));
    const ids = config.userIds;
    if (ids === undefined || ids === null) errors.add(`${at}.userIds`, STEP_MESSAGES.required);
    else if (!Array.isArray(ids)) errors.add(`${at}.userIds`, 'Expected a list of user ids.');
    else {
      if (ids.length > STEP_LIMITS.userIds) errors.add(`${at}.userIds`, `Ensure this list has no more than ${STEP_LIMITS.userIds} users.`);
      ids.forEach((id, index) => {
        if (!isUserId(id)) errors.add(`${at}.userIds.${index}`, 'Expected a user id (usr_...).');
      });
      if (new Set(ids).size !== ids.length) errors.add(`${at}.userIds`, 'Each user may appear once.');
    }
  },
};
