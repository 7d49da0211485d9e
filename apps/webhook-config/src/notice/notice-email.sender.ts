import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { OutboxLoop, retryDelayMs } from '../common/outbox.loop.js';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';
import { mailOf } from './notice.mail.js';
import { NoticeEmailRepository } from './notice-email.repository.js';
import { NoticeMailer } from './notice.mailer.js';

/** E-mails claimed at a time. */
const CLAIM_AT_MOST = 20;

/**
 * Sends the notice e-mails of the outbox (backend.notice_email) while SMTP_URL is set: claims the due ones for a lease,
 * sends each (one e-mail per recipient), marks it sent, or gives it a later try (1 s, doubling, at most
 * SMTP_RETRY_MAX) with the error. So an SMTP server that is down or hangs for an hour costs nothing but tries, and
 * when it is back each e-mail goes out once. Every process runs it; SKIP LOCKED gives each its own rows.
 *
 * At-least-once at one instant: a process that dies after the server accepted an e-mail and before it is marked sent
 * leaves the claim to run out, and the e-mail is sent again (the lease, at least a minute, is far longer than a send,
 * whose every step gives up after SMTP_TIMEOUT).
 */
@Injectable()
export class NoticeEmailSender implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(NoticeEmailSender.name);
  private readonly loop = new OutboxLoop(() => this.sendDue(), {
    batch: CLAIM_AT_MOST,
    onError: (error) =>
      this.logger.warn(`could not read the notice e-mails to send (tried again shortly): ${error.message}`),
  });
  private readonly leaseMs: number;
  private readonly retryMaxMs: number;

  constructor(
    config: WebhookConfigConfig,
    private readonly emails: NoticeEmailRepository,
    private readonly mailer: NoticeMailer,
  ) {
    this.leaseMs = Math.max(60_000, 6 * (config.mail?.timeoutMs ?? 0));
    this.retryMaxMs = config.mail?.retryMaxMs ?? 60_000;
  }

  onApplicationBootstrap(): void {
    if (this.mailer.enabled) this.loop.start();
  }

  /** Looks at the outbox now (a notice with e-mails was just recorded). */
  nudge(): void {
    this.loop.nudge();
  }

  /** Claims the due e-mails and sends them, one by one; how many it claimed. */
  async sendDue(): Promise<number> {
    const due = await this.emails.claim(CLAIM_AT_MOST, this.leaseMs);
    for (const email of due) {
      if (this.loop.isStopping) break; // the lease runs out and another process (or the next start) sends it
      try {
        await this.mailer.send({ to: email.recipient, ...mailOf(email) });
      } catch (error) {
        const retryInMs = retryDelayMs(email.attempts, this.retryMaxMs);
        const reason = (error as Error).message;
        this.logger.warn(
          `could not send a notice e-mail (try ${email.attempts}; again in ${Math.round(retryInMs / 1000)} s): ${reason}`,
        );
        await this.emails.failed(email.id, reason, retryInMs).catch(() => undefined); // else the lease runs out
        continue;
      }
      await this.emails.sent(email.id).catch((error: Error) =>
        // Sent, but not marked: when the lease runs out it is sent again (at-least-once).
        this.logger.warn(`a notice e-mail was sent but could not be marked sent: ${error.message}`),
      );
    }
    return due.length;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }
}
