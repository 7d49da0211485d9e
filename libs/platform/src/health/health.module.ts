import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { AmqpHealthIndicator } from './amqp.health.js';
import { HealthController } from './health.controller.js';
import { ReadReplicaHealthIndicator } from './read-replica.health.js';

/** Import into an app that has TypeORM and the messaging module to serve /health/live and /health/ready. */
@Module({
  imports: [TerminusModule.forRoot({ errorLogStyle: 'pretty' })],
  controllers: [HealthController],
  providers: [AmqpHealthIndicator, ReadReplicaHealthIndicator],
})
export class HealthModule {}
