/** Deepest nesting of objects and arrays a JSON request body may have. */
export const MAX_JSON_DEPTH = 32;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text nests objects and arrays deeper than `max`, read byte by byte without parsing (brackets inside
 * strings do not count). A body of a few kilobytes can nest thousands of levels; JSON.parse copes, but the
 * recursive copies and checks after it (class-transformer, the validators) overflow the stack: a 500, not a 400.
 */
export function nestsDeeperThan(json: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i += 1) {
    const byte = json[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}
