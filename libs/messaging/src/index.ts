export * from './topology.js';
export * from './amqp.client.js';
export * from './messaging.module.js';
export * from './messages.js';
