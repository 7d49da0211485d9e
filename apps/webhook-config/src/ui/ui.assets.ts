import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The merchant backend UI: static HTML, CSS and ES modules (no build step) from apps/webhook-config/ui, served
 * at `/`. Only the files present at start are routed (wildcard off), so every other path still answers with
 * the API's 404 problem.
 */
export function uiRoot(): string {
  const candidates = [
    new URL('../../ui/', import.meta.url), // source: apps/webhook-config/src/ui → apps/webhook-config/ui
    new URL('../../../../../apps/webhook-config/ui/', import.meta.url), // build: dist/apps/webhook-config/src/ui
  ].map((url) => fileURLToPath(url));
  const found = candidates.find((path) => existsSync(`${path}index.html`));
  if (!found) throw new Error(`webhook-config UI not found (looked in ${candidates.join(', ')})`);
  return found;
}

export async function mountUi(app: NestFastifyApplication): Promise<void> {
  await app.register(fastifyStatic, {
    root: uiRoot(),
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    // ui/types and ui/tsconfig.json are for the typecheck only (nx run webhook-config:typecheck), not the browser.
    allowedPath: (path) => !path.startsWith('/types/') && path !== '/tsconfig.json',
    cacheControl: true,
    maxAge: 0,
    etag: true,
  });
}
