import { findEmailTemplate } from '../email-templates';
import { checkText, isMissing, STEP_LIMITS, STEP_MESSAGES } from './step-checks';
import type { StepValidator } from './step-validator';

/** A gallery email template for the trigger's record type, or an AI prompt: one of them, by `mode`. */
export const sendEmail: StepValidator = {
  required: ['mode'],
  optional: ['templateId', 'prompt', 'subject'],
  trimmed: ['prompt', 'subject'],
  check(config, at, recordType, errors) {
    const mode = config.mode;
    if (isMissing(mode)) errors.add(`${at}.mode`, STEP_MESSAGES.required);
    else if (mode !== 'template' && mode !== 'ai_generated') errors.add(`${at}.mode`, STEP_MESSAGES.choice(mode));
    if (mode === 'template') {
      if (config.prompt !== undefined) errors.add(`${at}.prompt`, 'Only for mode ai_generated.');
      if (typeof config.templateId !== 'string' || !config.templateId) errors.add(`${at}.templateId`, STEP_MESSAGES.required);
      else {
        const template = findEmailTemplate(config.templateId);
        if (!template) errors.add(`${at}.templateId`, `Unknown email template "${config.templateId}".`);
        else if (recordType && template.recordType !== recordType) {
          errors.add(`${at}.templateId`, `Email template "${template.id}" is written for a ${template.recordType}, not a ${recordType}.`);
        }
      }
    }
    if (mode === 'ai_generated') {
      if (config.templateId !== undefined) errors.add(`${at}.templateId`, 'Only for mode template.');
      checkText(config.prompt, `${at}.prompt`, recordType, errors);
    }
    if (config.subject !== undefined) checkText(config.subject, `${at}.subject`, recordType, errors, STEP_LIMITS.name);
  },
};
