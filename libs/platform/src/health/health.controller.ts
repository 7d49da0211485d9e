import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator, type HealthCheckResult } from '@nestjs/terminus';
import { ProblemException } from '../http/problem.js';
import { AmqpHealthIndicator } from './amqp.health.js';
import { ReadReplicaHealthIndicator } from './read-replica.health.js';

/**
 * `/health/live`: the process answers. `/health/ready`: PostgreSQL and RabbitMQ answer too. With a read replica
 * (DATABASE_READ_URL), also `databaseReplica`: `degraded` (still ready: reads go to the primary) while it is down or
 * lagging.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly amqp: AmqpHealthIndicator,
    private readonly replica: ReadReplicaHealthIndicator,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  async ready() {
    try {
      return await this.health.check([
        () => this.database.pingCheck('database', { timeout: 2_000 }),
        () => this.amqp.isHealthy('rabbitmq'),
        ...(this.replica.configured ? [() => this.replica.isHealthy('databaseReplica')] : []),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      // Name what is down (not the error texts: the application log has those), so an operator or an orchestrator's
      // event log sees the cause in the answer.
      const result = error.getResponse() as HealthCheckResult;
      const checks = Object.fromEntries(Object.entries(result.details).map(([key, value]) => [key, value.status]));
      const down = Object.keys(checks).filter((key) => checks[key] === 'down');
      // With a cluster in AMQP_URL: how each of its nodes looks from here (which one is lost, which are left).
      const nodes = (result.details.rabbitmq as { nodes?: Record<string, string> } | undefined)?.nodes;
      throw new ProblemException(503, `Not ready: ${down.join(' and ') || 'a dependency'} not answering.`, {
        checks,
        ...(nodes ? { rabbitmqNodes: nodes } : {}),
      });
    }
  }
}
