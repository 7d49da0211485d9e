import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { DomainException, ProblemTables, type ProblemTable } from '#platform';
import { exportedSubclassesOf } from '#testing';
import { WEBHOOK_CONFIG_PROBLEMS } from './app.problems.js';
import { WEBHOOK_PROBLEMS } from './webhook/webhook.problems.js';

const SRC = fileURLToPath(new URL('.', import.meta.url));

/** The feature exceptions (exported from a `*.exception.ts`) that none of `tables` answers: each would be a 500. */
async function unanswered(tables: readonly ProblemTable[]): Promise<string[]> {
  const answered = new ProblemTables(tables);
  const exceptions = await exportedSubclassesOf(DomainException, SRC, '.exception.ts');
  return exceptions.filter((exception) => !answered.answers(exception)).map((exception) => exception.name);
}

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
