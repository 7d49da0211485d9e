export * from './infrastructure.js';
export * from './test-env.js';
