/**
 * Where outbound emails go once written to the workspace's outbox: SMTP through nodemailer when
 * SMTP_URL is configured, otherwise a log transport that records the hand-off in the service log
 * (nothing leaves the machine). The outbox record is written first, with an id derived from the
 * enrollment and step, and the transport gets that id as the Message-ID.
 *
 * A send either succeeds, is refused (the server said no, or no message ever left), or ends with
 * its outcome unknown (the connection timed out or broke while the message was on its way): the
 * caller must not send that one again (step-actions.ts).
 */
import nodemailer from 'nodemailer';
import type { Logger } from '@crm/observability';

export interface OutboundEmail {
  id: string;
  to: string;
  subject: string;
  body: string;
}

export interface EmailTransport {
  readonly kind: 'smtp' | 'log';
  send(email: OutboundEmail): Promise<void>;
  close(): void;
}

/** The send may or may not have reached the server: it must not be sent again. */
export class EmailOutcomeUnknown extends Error {
  override readonly name = 'EmailOutcomeUnknown';
}

/** nodemailer's codes for a connection that timed out or broke after it was open. */
const UNKNOWN_OUTCOME_CODES = new Set(['ETIMEDOUT', 'ESOCKET']);

export class SmtpEmailTransport implements EmailTransport {
  readonly kind = 'smtp' as const;
  private readonly transporter: nodemailer.Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
    /** Bounds connecting, the greeting, an idle socket and the whole send (SMTP_TIMEOUT_MS). */
    private readonly timeoutMs = 20_000,
  ) {
    this.transporter = nodemailer.createTransport(smtpUrl, {
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
  }

  async send(email: OutboundEmail): Promise<void> {
    const domain = this.from.split('@')[1]?.replace(/>$/, '') || 'crm.local';
    let timer: NodeJS.Timeout | undefined;
    // nodemailer's timeouts are per phase; a server that trickles its answers is bounded here.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new EmailOutcomeUnknown(`no answer from the SMTP server within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      await Promise.race([
        this.transporter.sendMail({
          from: this.from,
          to: email.to,
          subject: email.subject,
          text: email.body,
          messageId: `<${email.id}@${domain}>`,
        }),
        deadline,
      ]);
    } catch (error) {
      const { code, responseCode } = error as { code?: string; responseCode?: number };
      if (!(error instanceof EmailOutcomeUnknown) && responseCode === undefined && code && UNKNOWN_OUTCOME_CODES.has(code)) {
        throw new EmailOutcomeUnknown((error as Error).message);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.transporter.close();
  }
}

export class LogEmailTransport implements EmailTransport {
  readonly kind = 'log' as const;
  constructor(private readonly logger: Logger) {}

  async send(email: OutboundEmail): Promise<void> {
    this.logger.info(
      { emailId: email.id, to: email.to, subject: email.subject },
      'email handed to the log transport (SMTP_URL is not set)',
    );
  }

  close(): void {}
}

export function emailTransportFor(smtpUrl: string | undefined, from: string, logger: Logger, timeoutMs?: number): EmailTransport {
  return smtpUrl ? new SmtpEmailTransport(smtpUrl, from, timeoutMs) : new LogEmailTransport(logger);
}
