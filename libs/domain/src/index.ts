/**
 * `#domain` — the pure domain library of the payment service: enumerations, the `3dsecure` rules, versioned renderers
 * of the public objects, webhook body encodings and webhook signatures. No framework, no I/O.
 */
export * from './payment.constants.js';
export * from './three-d-secure.js';
export * from './transaction-fields.js';
export * from './record.shapes.js';
export * from './transaction.renderer.js';
export * from './api-version.js';
export * from './event-kinds.js';
export * from './webhook-version.js';
export * from './event-samples.js';
export * from './webhook-schema.js';
export * from './payload-encoding.js';
export * from './webhook-signature.js';
export * from './webhook-delivery.rules.js';
export * from './delivery-time.js';
export * from './webhook-custom-headers.js';
export * from './api-key.js';
