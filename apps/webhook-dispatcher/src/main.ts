import 'reflect-metadata';
import { runApp } from '#platform';
import { loadWebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';
import { createWebhookDispatcherApp } from './webhook-dispatcher.app.js';

await runApp('webhook-dispatcher', loadWebhookDispatcherConfig, createWebhookDispatcherApp);
