import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';

/** One e-mail to one of a merchant's backend users. */
export interface NoticeMail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends notices by e-mail through SMTP_URL (nodemailer), from MAIL_FROM; disabled when SMTP_URL is unset (the notices
 * are then only in the backend). Connecting, the server's greeting and any silence of the socket each give up after
 * SMTP_TIMEOUT (nodemailer's defaults are two minutes, ten for a silent socket): a server that is down or hangs costs
 * seconds, and the e-mail is tried again later (NoticeEmailSender). A failure throws.
 */
@Injectable()
export class NoticeMailer implements OnApplicationShutdown {
  private readonly transport?: Transporter;
  private readonly from?: string;

  constructor(config: WebhookConfigConfig) {
    if (!config.mail) return;
    const { smtpUrl, from, timeoutMs } = config.mail;
    this.transport = createTransport({
      url: smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    this.from = from;
  }

  get enabled(): boolean {
    return this.transport !== undefined;
  }

  async send(mail: NoticeMail): Promise<void> {
    if (!this.transport) throw new Error('SMTP_URL is not set');
    await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
