import { Injectable, Logger } from '@nestjs/common';
import { AmqpClient, publishDispatcherCommand, type DispatcherCommand } from '#messaging';
import { WebhookDeliveryException, WebhookDeliveryExceptionCode } from './webhook-delivery.exception.js';

/**
 * Asks the dispatcher for a manual attempt (a test delivery, a resend): a command on webhook-config's own exchange.
 * The dispatcher creates and counts the delivery; webhook-config writes none of its tables.
 */
@Injectable()
export class DeliveryCommandPublisher {
  private readonly logger = new Logger('DeliveryCommands');

  constructor(private readonly amqp: AmqpClient) {}

  /** Resolves once the broker has confirmed the command; 503 when it does not. */
  async send(command: Omit<DispatcherCommand, 'v' | 'requestedAt'>): Promise<void> {
    await this.queued(
      () => publishDispatcherCommand(this.amqp, command),
      `the ${command.type} of delivery ${command.deliveryId}`,
      {
        deliveryId: command.deliveryId,
        webhookId: command.webhookId,
        merchantId: command.merchantId,
      },
    );
  }

  private async queued(publish: () => Promise<void>, what: string, fields: Record<string, string>): Promise<void> {
    try {
      await publish();
    } catch (error) {
      this.logger.error({ msg: `could not queue ${what}: ${(error as Error).message}`, ...fields });
      throw new WebhookDeliveryException(
        'The delivery could not be queued right now. Please try again in a moment.',
        WebhookDeliveryExceptionCode.NOT_QUEUED,
      );
    }
  }
}
