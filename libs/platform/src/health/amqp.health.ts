import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AmqpClient } from '#messaging';

/**
 * Ready when the broker connection is up and a passive check of the events exchange succeeds. When `AMQP_URL` lists
 * the nodes of a cluster, the answer also shows which node this process uses and how each listed node looks right
 * now (`connected`, `up`, `down`: its AMQP port probed with a bare TCP connection), so that a lost node shows in every
 * app's health while it lasts — in the body, not as not-ready: the app works on through the other nodes.
 */
@Injectable()
export class AmqpHealthIndicator {
  constructor(
    private readonly amqp: AmqpClient,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async isHealthy(key = 'rabbitmq') {
    const check = this.indicator.check(key);
    const ping = this.amqp.ping(2_000).then(
      () => undefined,
      (error: Error) => error.message,
    );
    if (this.amqp.nodeCount === 1) {
      const answer = await ping;
      return answer === undefined ? check.up() : check.down({ message: answer });
    }
    const [nodes, answer] = await Promise.all([this.amqp.nodeStates(1_000), ping]);
    const cluster = { node: this.amqp.connectedNode() ?? null, nodes };
    return answer === undefined ? check.up(cluster) : check.down({ message: answer, ...cluster });
  }
}
