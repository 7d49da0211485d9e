export * from './data-source.options.js';
export * from './database.js';
export * from './pg-errors.js';
export { MIGRATIONS } from './migrations/index.js';
export * from './entities/webhook.entity.js';
export * from './entities/webhook-secret.entity.js';
export * from './entities/webhook-log.entity.js';
export * from './entities/webhook-health.entity.js';
