export * from './data-source.options.js';
export * from './database.js';
export * from './pg-errors.js';
export { MIGRATIONS } from './migrations/index.js';
export * from './webhook-log.shapes.js';
