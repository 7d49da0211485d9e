import { appTestEnv, metricsSuite } from '#testing';
import { loadWebhookConfigConfig } from '../src/config/webhook-config.config.js';
import { createWebhookConfigApp } from '../src/webhook-config.app.js';

metricsSuite('webhook-config', () => createWebhookConfigApp(loadWebhookConfigConfig(appTestEnv())), {
  traffic: async (baseUrl) => {
    await fetch(`${baseUrl}/api/webhooks`); // no session: 401
    await fetch(`${baseUrl}/`); // the backend UI
  },
});
