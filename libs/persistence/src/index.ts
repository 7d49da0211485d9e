export * from './data-source.options.js';
export * from './database.js';
export { MIGRATIONS } from './migrations/index.js';
