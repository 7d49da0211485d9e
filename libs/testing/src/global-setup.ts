import { provisionTestInfrastructure, type TestInfrastructure } from './infrastructure.js';

/** Jest global setup: provisions this run's database and vhost; tests read them via testEnv(). */
export default async function globalSetup(): Promise<void> {
  const infra = await provisionTestInfrastructure();
  (globalThis as { __testInfrastructure?: TestInfrastructure }).__testInfrastructure = infra;
  process.env.TEST_RUN_DATABASE_URL = infra.databaseUrl;
  process.env.TEST_RUN_AMQP_URL = infra.amqpUrl;
}
