import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { unansweredExceptions } from '#testing';
import { WEBHOOK_CONFIG_PROBLEMS } from './app.problems.js';
import { WEBHOOK_PROBLEMS } from './webhook/webhook.problems.js';

const SRC = fileURLToPath(new URL('.', import.meta.url));
const unanswered = (tables: Parameters<typeof unansweredExceptions>[0]) => unansweredExceptions(tables, SRC);

describe("webhook-config's problem tables", () => {
  it('answer every feature exception', async () => {
    expect(await unanswered(WEBHOOK_CONFIG_PROBLEMS)).toEqual([]);
  });

  it('name a feature exception whose table is left out of the list', async () => {
    expect(await unanswered(WEBHOOK_CONFIG_PROBLEMS.filter((table) => table !== WEBHOOK_PROBLEMS))).toEqual([
      'WebhookException',
    ]);
  });
});
