export * from './config/env.reader.js';
export * from './config/base.config.js';
export * from './http/problem.js';
export * from './http/problem.filter.js';
export * from './http/validation.pipe.js';
export * from './http/http-app.factory.js';
export * from './health/health.module.js';
