import { Module } from '@nestjs/common';
import { DatabaseRetry } from './database-retry.js';

/** What every feature's data access shares: one DatabaseRetry per process (the shutdown stops it for all). */
@Module({
  providers: [DatabaseRetry],
  exports: [DatabaseRetry],
})
export class CommonModule {}
