/**
 * Sends a workspace's outbox email at most once. The email moves queued → sending by a
 * compare-and-set just before the transport is called, so of two workers that both reach the send
 * (the step's claim lapsed under the first) only one calls the transport. An email found `sending`
 * by a later attempt belonged to a worker that stopped mid-send: whether it left is unknown, so it
 * is marked `unknown`, reported (run log, metric, log line) and never sent again.
 */
import type { Logger } from '@crm/observability';
import type { ScopedStore } from '@crm/store';
import { counter } from '@crm/telemetry';
import { EmailOutcomeUnknown, type EmailTransport } from '../../adapters/email-transport';
import type { EmailDocument, EmailStatus } from '../../domain/model';
import { emails } from '../../store/collections';
import { StepFailure, type StepOutcome } from './step-outcome';

const emailsUnknown = counter('automation_emails_unknown_total', 'Emails whose send broke off or was found unfinished; never re-sent.', []);

export class EmailDelivery {
  constructor(
    private readonly transport: EmailTransport,
    private readonly logger: Logger,
  ) {}

  async deliver(scoped: ScopedStore, email: EmailDocument): Promise<StepOutcome> {
    const sending = await scoped.update(
      emails,
      email.id,
      { set: { status: 'sending' } },
      { where: [{ field: 'status', op: 'eq', value: 'queued' }] },
    );
    if (!sending) return this.settled(scoped, email.id);
    try {
      await this.transport.send({ id: email.id, to: email.to, subject: email.subject, body: email.body });
    } catch (error) {
      if (error instanceof EmailOutcomeUnknown) return this.unknown(scoped, email, `the send broke off: ${error.message}`);
      const reason = `The ${this.transport.kind} transport refused the email: ${(error as Error).message}`;
      await this.move(scoped, email.id, ['sending'], 'failed', reason);
      throw new StepFailure(reason);
    }
    // `unknown` too: another attempt gave up on this send while it was still going, and it went.
    await this.move(scoped, email.id, ['sending', 'unknown'], 'sent', null);
    return { status: 'completed', detail: `Email ${email.id} sent to ${email.to} (${this.transport.kind} transport).` };
  }

  /** The email left `queued` before this attempt: answer from where it is, never send it again. */
  private async settled(scoped: ScopedStore, id: string): Promise<StepOutcome> {
    const email = (await scoped.get(emails, id))!;
    switch (email.status) {
      case 'sent':
        return { status: 'completed', detail: `Email ${id} was already sent to ${email.to}.` };
      case 'failed':
        throw new StepFailure(email.error ?? 'The email was refused.');
      case 'sending':
        return this.unknown(scoped, email, 'an earlier attempt stopped while sending it');
      case 'unknown':
        return { status: 'completed', detail: this.unknownDetail(email, email.error ?? 'an earlier attempt did not finish') };
      case 'queued':
        return this.deliver(scoped, email); // moved back meanwhile: cannot happen today, harmless if it does
      default: {
        const unreachable: never = email.status;
        throw new StepFailure(`Email ${id} has an unknown status ${String(unreachable)}.`);
      }
    }
  }

  private async unknown(scoped: ScopedStore, email: EmailDocument, why: string): Promise<StepOutcome> {
    await this.move(scoped, email.id, ['sending'], 'unknown', why);
    emailsUnknown.inc();
    this.logger.warn({ emailId: email.id, executionLogId: email.executionLogId, why }, 'email outcome unknown; it is not sent again');
    return { status: 'completed', detail: this.unknownDetail(email, why) };
  }

  private unknownDetail(email: EmailDocument, why: string): string {
    return `Email ${email.id} to ${email.to}: outcome unknown (${why}); not sent again.`;
  }

  private async move(scoped: ScopedStore, id: string, from: EmailStatus[], to: EmailStatus, error: string | null): Promise<void> {
    await scoped.update(emails, id, { set: { status: to, error } }, { where: [{ field: 'status', op: 'in', values: from }] });
  }
}
