import type { FastifyInstance } from 'fastify';

/**
 * Headers on every response. The UI loads only its own scripts and styles (no inline code), may not be framed
 * (clickjacking), and nothing is cached that did not ask for it: API answers carry secrets and session data, and
 * deciding by path would miss a path the router decodes (`/%61pi/…` is `/api/…` to it). Static files set their own.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function addSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });
}
