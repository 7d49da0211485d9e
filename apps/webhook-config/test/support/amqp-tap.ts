import { AmqpTap as SharedAmqpTap } from '#testing';
import type { Json } from './harness.js';

/** The shared tap (#testing), its messages read as JSON bodies. */
export type AmqpTap = SharedAmqpTap<Json>;
export const AmqpTap = {
  bind: (exchange: string, routingKey = ''): Promise<AmqpTap> => SharedAmqpTap.bind<Json>(exchange, routingKey),
};
