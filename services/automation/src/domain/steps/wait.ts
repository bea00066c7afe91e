import { WAIT_UNITS } from '../model';
import { isInteger, isMissing, STEP_LIMITS, STEP_MESSAGES } from './step-checks';
import type { StepValidator } from './step-validator';

/** A whole number of minutes, hours or days, at most a year. */
export const wait: StepValidator = {
  required: ['duration', 'unit'],
  optional: [],
  check(config, at, _recordType, errors) {
    const unit = config.unit;
    const knownUnit = (WAIT_UNITS as readonly unknown[]).includes(unit);
    if (isMissing(unit)) errors.add(`${at}.unit`, STEP_MESSAGES.required);
    else if (!knownUnit) errors.add(`${at}.unit`, STEP_MESSAGES.choice(unit));
    const duration = config.duration;
    if (duration === undefined || duration === null) errors.add(`${at}.duration`, STEP_MESSAGES.required);
    else if (!isInteger(duration) || duration < 1) errors.add(`${at}.duration`, 'Expected a whole number from 1.');
    else if (knownUnit) {
      const max = STEP_LIMITS.waitMax[unit as keyof typeof STEP_LIMITS.waitMax];
      if (duration > max) errors.add(`${at}.duration`, `A wait is at most a year (${max} ${String(unit)}).`);
    }
  },
};
