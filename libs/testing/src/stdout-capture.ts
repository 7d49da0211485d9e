/** One line of an app's log with LOG_FORMAT=json. */
export type LogLine = Record<string, unknown> & { time: string; level: string; app: string; msg: string };

/**
 * Captures what this process writes to stdout, where the apps log, from construction until `restore()`; nothing
 * reaches the terminal meanwhile.
 */
export class StdoutCapture {
  private readonly chunks: string[] = [];
  private readonly original = process.stdout.write;

  constructor() {
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      this.chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      (rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof process.stdout.write;
  }

  /** Everything written so far. */
  get text(): string {
    return this.chunks.join('');
  }

  /** The complete lines written so far. */
  lines(): string[] {
    return this.text.split('\n').slice(0, -1);
  }

  /** The complete lines, each parsed as JSON (throws on one that is not). */
  jsonLines(): LogLine[] {
    return this.lines().map((line) => JSON.parse(line) as LogLine);
  }

  restore(): void {
    process.stdout.write = this.original;
  }
}
