// A fast loopback webhook receiver in its own process. Answers 200 at once (or never, for paths under
// /black-hole/), and reports arrivals to the parent over IPC: counts, and arrival times by transaction uuid (with path and webhook-id).
import { createServer } from 'node:http';

const arrivals = [];
let count = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    if (req.url.startsWith('/black-hole/')) return; // never answers
    count += 1;
    if (req.url.startsWith('/fail/')) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Fatal error');
      return;
    }
    if (process.env.RECORD_ARRIVALS === '1') {
      const uuid = /"uuid":"([^"]+)"/.exec(Buffer.concat(chunks).toString())?.[1];
      arrivals.push([uuid, at, req.url, req.headers['webhook-id']]);
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
process.on('message', (message) => {
  if (message === 'count') process.send({ type: 'count', count });
  if (message === 'arrivals') process.send({ type: 'arrivals', arrivals: arrivals.splice(0) });
  if (message === 'reset') count = 0;
});
