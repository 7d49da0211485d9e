// The benchmarks' loopback webhook receiver (bench/dispatch/receiver.js) as a child process, recording arrivals, and a
// way to ask it what it counted.
import { fork } from 'node:child_process';

export async function startReceiver() {
  const child = fork(new URL('../dispatch/receiver.js', import.meta.url), {
    env: { ...process.env, RECORD_ARRIVALS: '1' },
  });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  /** Sends `what` ('count', 'arrivals') and resolves with the receiver's answer of that type. */
  const ask = (what) =>
    new Promise((resolve) => {
      const onMessage = (m) => {
        if (m.type === what) {
          child.off('message', onMessage);
          resolve(m);
        }
      };
      child.on('message', onMessage);
      child.send(what);
    });
  return { child, port, ask };
}
