// The benchmarks' OTLP trace sink (bench/dispatch/trace-sink.js) as a child process: its CPU is its own, apart from
// the load generator's, and a way to ask it how many trace exports arrived.
import { fork } from 'node:child_process';

export async function startTraceSink() {
  const child = fork(new URL('../dispatch/trace-sink.js', import.meta.url));
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  /** The export requests and their bytes received so far, and the requests by service. */
  const counts = () =>
    new Promise((resolve) => {
      const onMessage = (m) => {
        if (m.type !== 'counts') return;
        child.off('message', onMessage);
        resolve({ requests: m.requests, bytes: m.bytes, requestsByService: m.byService });
      };
      child.on('message', onMessage);
      child.send('counts');
    });
  // The collector's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the apps post to {url}/v1/traces).
  return { child, url: `http://127.0.0.1:${port}`, counts };
}
