# One image for the three apps (and the migrate CLI); the command picks the app.
#   docker build -t payments-platform:0.1.0 .
#   docker run payments-platform:0.1.0 node --max-semi-space-size=64 dist/apps/webhook-dispatcher/src/main.js
# The base is pinned to the Node version of package.json's `node` devDependency (the apps need 24.16 or later).
# Pin it further to a digest when you build: --build-arg NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:<digest>.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx nx run-many -t build --output-style=static

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Runtime dependencies only; the image's own Node 24 runs the apps.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The merchant backend's UI (static files, no build step) is served from the checkout's path.
COPY --from=build /app/apps/webhook-config/ui ./apps/webhook-config/ui
# The base image's `node` user (uid and gid 1000), numeric so that runAsNonRoot can check it. The files stay root's:
# the apps write nothing to disk, and run with a read-only root filesystem in Kubernetes.
USER 1000:1000
EXPOSE 3000 3001 3002
# Liveness of whichever app this container runs, on its port variable: the app is named in PID 1's command line.
# Another command (the migrate CLI) reports healthy. Up to 5 minutes at start: an app listens only once PostgreSQL
# and RabbitMQ answered. Kubernetes ignores HEALTHCHECK (it has its probes); docker-compose.yml sets its own.
HEALTHCHECK --interval=10s --timeout=5s --start-period=5m --retries=3 \
  CMD ["node", "-e", "const cmd = process.getBuiltinModule('node:fs').readFileSync('/proc/1/cmdline', 'latin1'); \
const app = [['transaction-api', 'TRANSACTION_API_PORT', 3000], ['webhook-config', 'WEBHOOK_CONFIG_PORT', 3001], \
['webhook-dispatcher', 'WEBHOOK_DISPATCHER_PORT', 3002]].find(([name]) => cmd.includes('dist/apps/' + name + '/')); \
if (!app) process.exit(0); \
fetch('http://127.0.0.1:' + (process.env[app[1]] || app[2]) + '/health/live', { signal: AbortSignal.timeout(4000) }) \
.then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1));"]
CMD ["node", "--max-semi-space-size=64", "dist/apps/transaction-api/src/main.js"]
