import { Injectable, Logger } from '@nestjs/common';
import { AmqpClient, publishRecoverCommand, type RecoverCommand } from '#messaging';
import { WebhookRecoverException, WebhookRecoverExceptionCode } from './webhook-recover.exception.js';

/** Asks the dispatcher to start or cancel a recover: a command on webhook-config's own exchange. */
@Injectable()
export class RecoverCommandPublisher {
  private readonly logger = new Logger('RecoverCommands');

  constructor(private readonly amqp: AmqpClient) {}

  /** Resolves once the broker has confirmed the command; 503 when it does not. */
  async send(command: Omit<RecoverCommand, 'v' | 'requestedAt'>): Promise<void> {
    try {
      await publishRecoverCommand(this.amqp, command);
    } catch (error) {
      this.logger.error({
        msg: `could not queue ${command.type} ${command.recoverId}: ${(error as Error).message}`,
        webhookId: command.webhookId,
        merchantId: command.merchantId,
      });
      throw new WebhookRecoverException(
        'The recover could not be queued right now. Please try again in a moment.',
        WebhookRecoverExceptionCode.NOT_QUEUED,
      );
    }
  }
}
