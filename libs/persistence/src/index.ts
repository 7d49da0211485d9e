export * from './data-source.options.js';
export * from './database.js';
export { MIGRATIONS } from './migrations/index.js';
export * from './entities/merchant.entity.js';
export * from './entities/integration.entity.js';
export * from './entities/webhook.entity.js';
export * from './entities/webhook-secret.entity.js';
export * from './entities/webhook-delivery.entity.js';
export * from './entities/webhook-log.entity.js';
