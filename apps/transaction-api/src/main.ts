import 'reflect-metadata';
import { runApp } from '#platform';
import { loadTransactionApiConfig } from './config/transaction-api.config.js';
import { createTransactionApiApp } from './transaction-api.app.js';

await runApp('transaction-api', loadTransactionApiConfig, createTransactionApiApp);
