export * from './topology.js';
export * from './amqp.client.js';
export * from './amqp-urls.js';
export * from './messaging.module.js';
export * from './messages.js';
