import { Injectable, Logger } from '@nestjs/common';
import { RECOVER_COMMAND, type RecoverCommand } from '#messaging';
import { RecoverRepository } from './recover.repository.js';

/**
 * webhook-config's recover commands: a start records the recover (RecoverJob works on it), a cancel stops it. Both
 * are one statement, so the command queue is never held by a recover, however many deliveries it sends.
 */
@Injectable()
export class RecoverService {
  private readonly logger = new Logger(RecoverService.name);

  constructor(private readonly repository: RecoverRepository) {}

  /** Throws (the command is parked) for a start without `since`. */
  async handle(command: RecoverCommand): Promise<void> {
    const fields = { webhookId: command.webhookId, merchantId: command.merchantId };
    if (command.type === RECOVER_COMMAND) {
      if (command.since === undefined) throw new Error('a recover start needs since');
      const started = await this.repository.start({
        id: command.recoverId,
        webhookId: command.webhookId,
        merchantId: command.merchantId,
        since: new Date(command.since),
        total: command.total,
      });
      if (started === 'refused') {
        this.logger.warn({
          msg: `recover ${command.recoverId} of webhook ${command.webhookId} not started: another recover of it runs, or it is disabled or gone`,
          ...fields,
        });
      }
      return;
    }
    const cancelled = await this.repository.cancel(command.webhookId, command.recoverId, 'requested');
    if (cancelled.length > 0)
      this.logger.log({ msg: `recover ${cancelled.join(', ')} cancelled by the merchant`, ...fields });
  }
}
