#!/usr/bin/env node
// @ts-check
// The `payments` command line for merchants' developers (CONTRACT §8): `listen` forwards your integration's events
// to a local URL, `trigger` sends a sample event. Plain JavaScript, no dependencies: Node 24's fetch and WebSocket.
import { parseCommand, UsageError, USAGE } from './args.js';
import { CliError } from './backend.js';
import { listen } from './listen.js';
import { trigger } from './trigger.js';

const io = {
  /** @param {string} line */
  out: (line) => void process.stdout.write(`${line}\n`),
  /** @param {string} line */
  err: (line) => void process.stderr.write(`${line}\n`),
};

/** @returns {Promise<number>} */
async function main() {
  let command;
  try {
    command = parseCommand(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const help = error.command === 'main' ? 'payments --help' : `payments ${error.command} --help`;
    io.err(`payments: ${error.message}\nSee "${help}".`);
    return 2;
  }
  try {
    if (command.command === 'help') {
      process.stdout.write(USAGE[command.topic]);
      return 0;
    }
    if (command.command === 'trigger') return await trigger(command, process.env, io);
    return await listen(command, process.env, io);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.err(`payments: ${error.message}`);
    return 1;
  }
}

// process.exitCode rather than exit(): what is written to a pipe is written in full first. Open keep-alive
// sockets of the forwards would keep the process up, so it exits explicitly once stdout has drained.
main().then(
  (code) => {
    process.exitCode = code;
    process.stdout.write('', () => process.exit(code));
  },
  (error) => {
    io.err(`payments: unexpected error: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
