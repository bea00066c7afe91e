import { DomainError, type FieldErrors } from './domain-error';

/**
 * Collects every failing field of a body before answering, so one 422 lists them all
 * (`{field: [messages]}`); each message once per field. Shared by every service that checks bodies.
 */
export class FieldErrorList {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    const messages = (this.errors[field] ??= []);
    if (!messages.includes(message)) messages.push(message);
  }

  merge(errors: FieldErrors | undefined): void {
    for (const [field, messages] of Object.entries(errors ?? {})) for (const message of messages) this.add(field, message);
  }

  /** How many fields have failed so far: a check can tell whether its own part added any. */
  get size(): number {
    return Object.keys(this.errors).length;
  }

  get empty(): boolean {
    return this.size === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw DomainError.validation(this.errors);
  }
}
