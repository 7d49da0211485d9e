import type { FastifyInstance, FastifyRequest } from 'fastify';
import { problemFor, sendProblem } from '#platform';

const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

const isJson = (contentType: string | undefined) => /^application\/json\s*(;|$)/i.test(contentType ?? '');

/**
 * The API reads request bodies only as `application/json`. HTML forms can post `text/plain`,
 * `application/x-www-form-urlencoded` and `multipart/form-data` across sites without a CORS preflight, so
 * refusing them (415) before any parsing closes login CSRF, and backs up the X-CSRF-Token check elsewhere.
 */
export function acceptOnlyJsonBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    // The matched route, not the raw URL: the router decodes the path, so `/%61pi/session` is `/api/session`.
    const path = request.routeOptions.url ?? request.url;
    if (!path.startsWith('/api/') && !path.startsWith('/internal/')) return;
    if (!hasBody(request) || isJson(request.headers['content-type'])) return;
    sendProblem(reply, problemFor(415, 'Send the request body as JSON (Content-Type: application/json).'));
    return reply;
  });
}
