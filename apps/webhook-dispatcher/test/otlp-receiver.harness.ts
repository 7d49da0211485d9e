import { fork, type ChildProcess } from 'node:child_process';

/** The receiver's script, from the repository root (where the tests run). */
const RECEIVER = 'apps/webhook-dispatcher/test/otlp.receiver.js';

/** A span as the OTLP receiver decoded it from an export. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 INTERNAL, 2 SERVER, 3 CLIENT, 4 PRODUCER, 5 CONSUMER. */
  kind: number;
  attributes: Record<string, unknown>;
  /** 0 UNSET, 1 OK, 2 ERROR. */
  status: number;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** The OTLP/HTTP receiver (otlp.receiver.js) as its own process: the apps export to `url`. */
export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (the apps post to `{url}/v1/traces`). */
  url: string;
  /** Every span received so far, and how many export requests it could not decode. */
  received(): Promise<{ spans: ReceivedSpan[]; rejected: number }>;
  stop(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const child: ChildProcess = fork(RECEIVER, { stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the OTLP receiver exited (${code}) before listening`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    received: () =>
      new Promise((resolve) => {
        const onMessage = (message: { type: string; spans: ReceivedSpan[]; rejected: number }) => {
          if (message.type !== 'spans') return;
          child.off('message', onMessage);
          resolve({ spans: message.spans, rejected: message.rejected });
        };
        child.on('message', onMessage);
        child.send('spans');
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
