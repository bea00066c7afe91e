/**
 * Where outbound emails go once written to the workspace's outbox: SMTP through nodemailer when
 * SMTP_URL is configured, otherwise a log transport that records the hand-off in the service log
 * (nothing leaves the machine). The outbox record is written first, with an id derived from the
 * enrollment and step; the transport gets that id as the Message-ID, so a retried step re-sends
 * the same message, which receiving servers de-duplicate.
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

export class SmtpEmailTransport implements EmailTransport {
  readonly kind = 'smtp' as const;
  private readonly transporter: nodemailer.Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transporter = nodemailer.createTransport(smtpUrl);
  }

  async send(email: OutboundEmail): Promise<void> {
    const domain = this.from.split('@')[1]?.replace(/>$/, '') || 'crm.local';
    await this.transporter.sendMail({
      from: this.from,
      to: email.to,
      subject: email.subject,
      text: email.body,
      messageId: `<${email.id}@${domain}>`,
    });
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

export function emailTransportFor(smtpUrl: string | undefined, from: string, logger: Logger): EmailTransport {
  return smtpUrl ? new SmtpEmailTransport(smtpUrl, from) : new LogEmailTransport(logger);
}
