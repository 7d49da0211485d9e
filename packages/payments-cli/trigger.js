// @ts-check
// `payments trigger <kind>`: POST /api/cli/trigger {kind} → 202 {eventId, eventType, sessions}.
import { backendUrl, postJson } from './backend.js';

/**
 * @param {import('./args.js').TriggerCommand} command
 * @param {NodeJS.ProcessEnv} env
 * @param {{ out: (line: string) => void, err: (line: string) => void }} io
 * @returns {Promise<number>} the exit code
 */
export async function trigger(command, env, io) {
  const answer = await postJson(backendUrl(env), command.apiKey, '/api/cli/trigger', { kind: command.kind });
  const sessions = Number(answer?.sessions ?? 0);
  const event = `a sample ${answer?.eventType ?? command.kind} event (${answer?.eventId ?? 'no id'})`;
  if (sessions === 0) {
    io.err(
      `Warning: sent ${event}, but no listening session selects ${command.kind} events, so nobody receives it. ` +
        `Start one with "payments listen --forward-to <url>" (its --events including ${command.kind}).`,
    );
  } else {
    io.out(`Sent ${event} to ${sessions} listening session${sessions === 1 ? '' : 's'}.`);
  }
  return 0;
}
