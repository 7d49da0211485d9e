import { healthSuite } from '#testing';
import { loadWebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { createWebhookDispatcherApp } from '../src/webhook-dispatcher.app.js';
import { dispatcherEnv } from './dispatcher.harness.js';

// The harness's SECRET_ENCRYPTION_KEY: the secrets other suites wrote to this run's database are sealed with it, and
// a dispatcher refuses to start with a key that opens none of them.
healthSuite('webhook-dispatcher', () => createWebhookDispatcherApp(loadWebhookDispatcherConfig(dispatcherEnv())));
