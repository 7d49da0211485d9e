import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AmqpClient } from '#messaging';

/** Ready when the broker connection is up and a passive check of the events exchange succeeds. */
@Injectable()
export class AmqpHealthIndicator {
  constructor(
    private readonly amqp: AmqpClient,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'rabbitmq') {
    const check = this.indicator.check(key);
    try {
      await this.amqp.ping(2_000);
      return check.up();
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
  }
}
