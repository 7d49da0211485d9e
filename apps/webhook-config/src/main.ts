import 'reflect-metadata';
import { runApp } from '#platform';
import { loadWebhookConfigConfig } from './config/webhook-config.config.js';
import { createWebhookConfigApp } from './webhook-config.app.js';

await runApp('webhook-config', loadWebhookConfigConfig, createWebhookConfigApp);
