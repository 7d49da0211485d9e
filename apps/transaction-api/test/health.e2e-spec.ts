import { appTestEnv, healthSuite } from '#testing';
import { loadTransactionApiConfig } from '../src/config/transaction-api.config.js';
import { createTransactionApiApp } from '../src/transaction-api.app.js';

healthSuite('transaction-api', () => createTransactionApiApp(loadTransactionApiConfig(appTestEnv())));
