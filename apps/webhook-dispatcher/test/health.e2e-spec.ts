import { appTestEnv, healthSuite } from '#testing';
import { loadWebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { createWebhookDispatcherApp } from '../src/webhook-dispatcher.app.js';

healthSuite('webhook-dispatcher', () => createWebhookDispatcherApp(loadWebhookDispatcherConfig(appTestEnv())));
