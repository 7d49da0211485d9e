/**
 * A webhook's custom headers (CONTRACT §5, issue #34): at most {@link MAX_CUSTOM_HEADERS} `{name, value}` sent with
 * every attempt. webhook-config refuses what breaks these rules; the dispatcher drops a reserved name again when it
 * loads a webhook (defence in depth: the delivery's own headers always win).
 */

export const MAX_CUSTOM_HEADERS = 10;
export const MAX_CUSTOM_HEADER_NAME_LENGTH = 100;
export const MAX_CUSTOM_HEADER_VALUE_LENGTH = 1024;

/**
 * Names the dispatcher sets itself or that change how the request is framed or routed. The contract's list
 * (`host`, `content-type`, `content-length`, `transfer-encoding`, `connection`, `user-agent`, `traceparent`,
 * `x-webhook-signature`, `webhook-*`) plus the hop-by-hop and proxy headers, which a receiver never sees as sent
 * (`keep-alive`, `te`, `trailer`, `upgrade`, `expect`, `tracestate`, `proxy-*`).
 */
export const RESERVED_HEADER_NAMES: readonly string[] = [
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'user-agent',
  'traceparent',
  'tracestate',
  'x-webhook-signature',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
];
export const RESERVED_HEADER_PREFIXES: readonly string[] = ['webhook-', 'proxy-'];

/** RFC 7230 `token`: one or more tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Printable ASCII and space (no control character, no CR/LF, nothing outside ASCII). */
const VALUE = /^[\x20-\x7e]*$/;

/** Whether the dispatcher owns this header name (any letter case). */
export function isReservedHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_HEADER_NAMES.includes(lower) || RESERVED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** What is wrong with a header name, or null. The message names the header (names are not secret). */
export function customHeaderNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > MAX_CUSTOM_HEADER_NAME_LENGTH) {
    return `must be 1 to ${MAX_CUSTOM_HEADER_NAME_LENGTH} characters long`;
  }
  if (!TOKEN.test(name)) {
    return `"${printable(name)}" is not a header name: use letters, digits and ! # $ % & ' * + - . ^ _ \` | ~ only`;
  }
  if (isReservedHeaderName(name))
    return `"${name}" is reserved: the dispatcher sets it (or it cannot be sent as given)`;
  return null;
}

/** What is wrong with a header value, or null. The message never contains the value. */
export function customHeaderValueProblem(value: string): string | null {
  if (value.length === 0 || value.length > MAX_CUSTOM_HEADER_VALUE_LENGTH) {
    return `must be 1 to ${MAX_CUSTOM_HEADER_VALUE_LENGTH} characters long`;
  }
  if (!VALUE.test(value)) return 'may contain only printable ASCII characters and spaces (no line breaks or tabs)';
  if (value.startsWith(' ') || value.endsWith(' ')) return 'must not start or end with a space';
  return null;
}

/** The index of the first entry whose name (any letter case) an earlier entry has, or -1. */
export function duplicateHeaderIndex(names: readonly string[]): number {
  const seen = new Set<string>();
  for (let i = 0; i < names.length; i++) {
    const lower = names[i]!.toLowerCase();
    if (seen.has(lower)) return i;
    seen.add(lower);
  }
  return -1;
}

/** What a stored value is shown as: its last four characters; a value of four or fewer shows none. */
export function maskedHeaderValue(value: string): string {
  return value.length > 4 ? value.slice(-4) : '';
}

/** The encryption context of a header value: bound to the webhook and the name, so a copied ciphertext fails. */
export function headerValueContext(webhookId: string, name: string): string {
  return `${webhookId}/header/${name.toLowerCase()}`;
}

const printable = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_CUSTOM_HEADER_NAME_LENGTH);
