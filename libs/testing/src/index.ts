export * from './infrastructure.js';
export * from './test-env.js';
export * from './http-app.harness.js';
export * from './health.suite.js';
