/**
 * Sends a workspace's outbox email at most once. The email moves queued → sending by a
 * compare-and-set just before the transport is called, so of two workers that both reach the send
 * (the step's claim lapsed under the first) only one calls the transport. An email found `sending`
 * by a later attempt belonged to a worker that stopped mid-send: whether it left is unknown, so it
 * is marked `unknown`, reported (run log, metric, log line) and never sent again.
 */
import type { Logger } from '@crm/observability';
import { counter } from '@crm/telemetry';
import { EmailOutcomeUnknown, type EmailTransport } from '../../adapters/email-transport';
import type { EmailDocument } from '../../domain/model';
import type { EmailRepository } from '../../store/email-repository';
import { StepFailure, type StepOutcome } from './step-outcome';

const emailsUnknown = counter('automation_emails_unknown_total', 'Emails whose send broke off or was found unfinished; never re-sent.', []);

export class EmailDelivery {
  constructor(
    private readonly emails: EmailRepository,
    private readonly transport: EmailTransport,
    private readonly logger: Logger,
  ) {}

  async deliver(email: EmailDocument): Promise<StepOutcome> {
    const sending = await this.emails.markSending(email.workspaceId, email.id);
    if (!sending) return this.settled(email.workspaceId, email.id);
    try {
      await this.transport.send({ id: email.id, to: email.to, subject: email.subject, body: email.body });
    } catch (error) {
      if (error instanceof EmailOutcomeUnknown) return this.unknown(email, `the send broke off: ${error.message}`);
      const reason = `The ${this.transport.kind} transport refused the email: ${(error as Error).message}`;
      await this.emails.move(email.workspaceId, email.id, ['sending'], 'failed', reason);
      throw new StepFailure(reason);
    }
    // `unknown` too: another attempt gave up on this send while it was still going, and it went.
    await this.emails.move(email.workspaceId, email.id, ['sending', 'unknown'], 'sent', null);
    return { status: 'completed', detail: `Email ${email.id} sent to ${email.to} (${this.transport.kind} transport).` };
  }

  /** The email left `queued` before this attempt: answer from where it is, never send it again. */
  private async settled(workspaceId: string, id: string): Promise<StepOutcome> {
    const email = (await this.emails.get(workspaceId, id))!;
    switch (email.status) {
      case 'sent':
        return { status: 'completed', detail: `Email ${id} was already sent to ${email.to}.` };
      case 'failed':
        throw new StepFailure(email.error ?? 'The email was refused.');
      case 'sending':
        return this.unknown(email, 'an earlier attempt stopped while sending it');
      case 'unknown':
        return { status: 'completed', detail: this.unknownDetail(email, email.error ?? 'an earlier attempt did not finish') };
      case 'queued':
        return this.deliver(email); // moved back meanwhile: cannot happen today, harmless if it does
      default: {
        const unreachable: never = email.status;
        throw new StepFailure(`Email ${id} has an unknown status ${String(unreachable)}.`);
      }
    }
  }

  private async unknown(email: EmailDocument, why: string): Promise<StepOutcome> {
    await this.emails.move(email.workspaceId, email.id, ['sending'], 'unknown', why);
    emailsUnknown.inc();
    this.logger.warn({ emailId: email.id, executionLogId: email.executionLogId, why }, 'email outcome unknown; it is not sent again');
    return { status: 'completed', detail: this.unknownDetail(email, why) };
  }

  private unknownDetail(email: EmailDocument, why: string): string {
    return `Email ${email.id} to ${email.to}: outcome unknown (${why}); not sent again.`;
  }
}
