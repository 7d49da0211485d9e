import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { unansweredExceptions } from '#testing';
import { TRANSACTION_API_PROBLEMS } from './app.problems.js';
import { TRANSACTION_PROBLEMS } from './transaction/transaction.problems.js';

const SRC = fileURLToPath(new URL('.', import.meta.url));
const unanswered = (tables: Parameters<typeof unansweredExceptions>[0]) => unansweredExceptions(tables, SRC);

describe("transaction-api's problem tables", () => {
  it('answer every feature exception', async () => {
    expect(await unanswered(TRANSACTION_API_PROBLEMS)).toEqual([]);
  });

  it('name a feature exception whose table is left out of the list', async () => {
    expect(await unanswered(TRANSACTION_API_PROBLEMS.filter((table) => table !== TRANSACTION_PROBLEMS))).toEqual([
      'TransactionException',
    ]);
  });
});
