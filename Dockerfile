# One image for the three apps (and the migration job); the command picks the app.
#   docker build --pull -t payments-platform .   (--pull: the latest Node 24; the apps need 24.16 or later)
#   docker run payments-platform node dist/apps/webhook-dispatcher/src/main.js
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx nx run-many -t build --output-style=static

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Runtime dependencies only; the image's own Node 24 runs the apps.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The merchant backend's UI (static files, no build step) is served from the checkout's path.
COPY --from=build /app/apps/webhook-config/ui ./apps/webhook-config/ui
USER node
EXPOSE 3000 3001 3002
CMD ["node", "--max-semi-space-size=64", "dist/apps/transaction-api/src/main.js"]
