import { appTestEnv, healthSuite } from '#testing';
import { loadWebhookConfigConfig } from '../src/config/webhook-config.config.js';
import { createWebhookConfigApp } from '../src/webhook-config.app.js';

healthSuite('webhook-config', () => createWebhookConfigApp(loadWebhookConfigConfig(appTestEnv())));
