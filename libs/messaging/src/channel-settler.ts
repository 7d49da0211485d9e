import type { Channel, ConsumeMessage } from 'amqplib';

/**
 * Settles the messages of one consumer's channel. Acks that finish in the same turn go out together: the run of
 * consecutive delivery tags at the head of the channel's unsettled messages takes one `multiple` ack (one frame,
 * and for a quorum queue one settle command instead of one per message); every other finished message is acked
 * on its own at once, so a message that takes long never holds back the acks (and prefetch slots) of others.
 */
export class ChannelSettler {
  /** Delivery tags not yet settled, in the (ascending) order the broker sent them. */
  private readonly unsettled: number[] = [];
  /** Finished and to be acked at the next flush. */
  private readonly toAck = new Map<number, ConsumeMessage>();
  /** Settled out of order (acked alone, or nacked): skipped when they reach the head. */
  private readonly settledEarly = new Set<number>();
  private flushScheduled = false;

  constructor(
    private readonly channel: Channel,
    /** Told when the channel is gone before a settle could be sent (the broker redelivers those messages). */
    private readonly onSettleError: (error: Error) => void,
  ) {}

  received(message: ConsumeMessage): void {
    this.unsettled.push(message.fields.deliveryTag);
  }

  ack(message: ConsumeMessage): void {
    this.toAck.set(message.fields.deliveryTag, message);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  nack(message: ConsumeMessage, requeue: boolean): void {
    this.settledEarly.add(message.fields.deliveryTag);
    this.settle(() => this.channel.nack(message, false, requeue));
  }

  /** Sends every pending ack now (also run before the channel closes on a graceful stop). */
  flush(): void {
    this.flushScheduled = false;
    let last: ConsumeMessage | undefined;
    let count = 0;
    while (this.unsettled.length > 0) {
      const tag = this.unsettled[0];
      if (this.settledEarly.delete(tag)) {
        this.unsettled.shift();
        continue;
      }
      const message = this.toAck.get(tag);
      if (!message) break;
      this.unsettled.shift();
      this.toAck.delete(tag);
      last = message;
      count += 1;
    }
    if (last) {
      const head = last;
      this.settle(() => this.channel.ack(head, count > 1));
    }
    for (const [tag, message] of this.toAck) {
      this.settledEarly.add(tag);
      this.settle(() => this.channel.ack(message));
    }
    this.toAck.clear();
  }

  private settle(send: () => void): void {
    try {
      send();
    } catch (error) {
      this.onSettleError(error as Error);
    }
  }
}
