import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';

/** One e-mail to a merchant's backend users. */
export interface NoticeMail {
  to: string[];
  subject: string;
  text: string;
}

/**
 * Sends notices by e-mail through SMTP_URL (nodemailer), from MAIL_FROM; does nothing when SMTP_URL is unset (the
 * notices are then only in the backend). A failure throws: the caller's message is then given back to be tried again.
 */
@Injectable()
export class NoticeMailer implements OnApplicationShutdown {
  private readonly transport?: Transporter;
  private readonly from?: string;

  constructor(config: WebhookConfigConfig) {
    if (!config.mail) return;
    this.transport = createTransport(config.mail.smtpUrl);
    this.from = config.mail.from;
  }

  get enabled(): boolean {
    return this.transport !== undefined;
  }

  async send(mail: NoticeMail): Promise<void> {
    if (!this.transport || mail.to.length === 0) return;
    await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
