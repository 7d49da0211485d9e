import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import {
  AmqpClient,
  dispatcherCommands,
  QUEUES,
  RECOVER_CANCEL_COMMAND,
  RECOVER_COMMAND,
  recoverCommands,
  ROUTING_KEYS,
} from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { RecoverService } from '../recover/recover.service.js';
import { ManualDeliveryService } from './manual-delivery.service.js';

/** Commands in flight per process: each is a short database transaction and one publish. */
const COMMAND_PREFETCH = 16;

/**
 * Consumes `dispatcher.commands`, webhook-config's requests for a test delivery, a resend, or to start or
 * cancel a recover (RecoverService: recorded here, worked on by RecoverJob). A command is
 * acked once its delivery messages are confirmed, or once it turned out to need none (webhook gone, resend limit
 * reached). One that
 * is not a dispatcher command of a known version is parked in `dispatcher.commands.parked`, with its reason.
 */
@Injectable()
export class CommandsConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly amqp: AmqpClient,
    private readonly manual: ManualDeliveryService,
    private readonly recovers: RecoverService,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.amqp.consume(
      QUEUES.dispatcherCommands,
      async (message) => {
        const key = message.fields.routingKey;
        if (key === RECOVER_COMMAND || key === RECOVER_CANCEL_COMMAND) {
          const recover = recoverCommands.read(message.content);
          if (!recover.ok) await this.amqp.park(message, ROUTING_KEYS.parkedCommands, recover.reason);
          else if (recover.value.type === RECOVER_COMMAND && recover.value.since === undefined) {
            await this.amqp.park(message, ROUTING_KEYS.parkedCommands, 'a recover start needs since');
          } else await this.recovers.handle(recover.value);
          return 'ack';
        }
        const command = dispatcherCommands.read(message.content);
        if (!command.ok) await this.amqp.park(message, ROUTING_KEYS.parkedCommands, command.reason);
        else if (command.value.type === 'webhook.test') await this.manual.test(command.value);
        else await this.manual.resend(command.value);
        return 'ack';
      },
      { prefetch: COMMAND_PREFETCH, priority: this.config.consumerPriority },
    );
  }
}
