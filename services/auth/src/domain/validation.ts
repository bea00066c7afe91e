import { DomainError, type FieldErrors } from '@crm/observability';
import { isEmail, characterCount } from '@crm/vocabulary';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords';

export const REQUIRED = 'This field is required.';

/** Gathers every failing field, so a client fixes its request in one go. */
export class FieldCheck {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  /** A required, trimmed text of at most `max` characters; undefined when it failed. */
  text(field: string, value: string | undefined, max: number): string | undefined {
    const trimmed = (value ?? '').trim();
    if (!trimmed) return void this.add(field, REQUIRED);
    if (characterCount(trimmed) > max) return void this.add(field, `Ensure this field has no more than ${max} characters.`);
    return trimmed;
  }

  email(field: string, value: string | undefined): string | undefined {
    const email = (value ?? '').trim().toLowerCase();
    if (!email) return void this.add(field, REQUIRED);
    if (!isEmail(email)) return void this.add(field, 'Enter a valid email address.');
    return email;
  }

  password(field: string, value: string | undefined): string | undefined {
    const password = value ?? '';
    if (!password) return void this.add(field, REQUIRED);
    if (characterCount(password) < PASSWORD_MIN_LENGTH)
      return void this.add(field, `Ensure this field has at least ${PASSWORD_MIN_LENGTH} characters.`);
    if (characterCount(password) > PASSWORD_MAX_LENGTH)
      return void this.add(field, `Ensure this field has no more than ${PASSWORD_MAX_LENGTH} characters.`);
    return password;
  }

  /** Runs a check that throws a validation DomainError, keeping its field errors. */
  merge<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof DomainError) || !error.fields) throw error;
      for (const [field, messages] of Object.entries(error.fields)) for (const message of messages) this.add(field, message);
      return undefined;
    }
  }

  throwIfAny(): void {
    if (Object.keys(this.errors).length > 0) throw DomainError.validation(this.errors);
  }
}
