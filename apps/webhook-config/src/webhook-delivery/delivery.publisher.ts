import { Injectable, Logger } from '@nestjs/common';
import { AmqpClient, publishDelivery } from '#messaging';
import { ProblemException } from '#platform';

/** Queues one manual attempt of a delivery for the dispatchers. */
@Injectable()
export class DeliveryPublisher {
  private readonly logger = new Logger('DeliveryPublisher');

  constructor(private readonly amqp: AmqpClient) {}

  async deliverNow(deliveryId: string, attempt: number): Promise<void> {
    try {
      await publishDelivery(this.amqp, { deliveryId, manual: true }, attempt);
    } catch (error) {
      this.logger.error(`could not queue delivery ${deliveryId}: ${(error as Error).message}`);
      throw new ProblemException(503, 'The delivery could not be queued right now. Please try again in a moment.');
    }
  }
}
