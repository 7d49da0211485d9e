// An OTLP/HTTP trace sink in its own process (BENCH_TRACING=1): answers 200 to every POST /v1/traces, as a collector
// does, and counts the requests and their bytes, and the requests of each service (its `service.name`, found in the
// JSON without decoding the spans); tells the parent over IPC.
import { createServer } from 'node:http';

let requests = 0;
let bytes = 0;
const byService = {};
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    const body = Buffer.concat(chunks);
    const service = /"key":"service\.name","value":\{"stringValue":"([^"]*)"/.exec(body.toString('latin1'))?.[1];
    requests += 1;
    bytes += body.length;
    byService[service ?? 'unnamed'] = (byService[service ?? 'unnamed'] ?? 0) + 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
process.on('message', (message) => {
  if (message === 'counts') process.send({ type: 'counts', requests, bytes, byService });
});
