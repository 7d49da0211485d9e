// An OTLP/HTTP trace receiver in its own process, for the tracing e2e test: takes `POST /v1/traces` as a collector
// does, decodes each export (OTLP JSON, what @opentelemetry/exporter-trace-otlp-http sends; gzip too) into flat
// spans, and hands them to the parent over IPC ('spans'). A body it cannot decode (protobuf, bad JSON) is answered
// 400 and counted, so the test fails on it instead of missing spans quietly.
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';

const spans = [];
let rejected = 0;

const valueOf = (value = {}) => {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
};
const attributesOf = (list = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

function decode(exported) {
  for (const resourceSpans of exported.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          status: span.status?.code ?? 0,
        });
      }
    }
  }
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    try {
      let body = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        throw new Error(`not OTLP JSON: ${request.headers['content-type']}`);
      }
      decode(JSON.parse(body.toString('utf8')));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } catch (error) {
      rejected += 1;
      response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
process.on('message', (message) => {
  if (message === 'spans') process.send({ type: 'spans', spans, rejected });
});
process.on('disconnect', () => process.exit(0));
