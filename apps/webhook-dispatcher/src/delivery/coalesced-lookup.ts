import type { LookupAddress } from 'node:dns';

type AllAddressesCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
/** `dns.lookup(hostname, { family, all: true }, callback)`. */
export type AllAddressesLookup = (
  hostname: string,
  options: { family: number; all: true },
  callback: AllAddressesCallback,
) => void;

/**
 * Shares one lookup among every caller asking for the same host and family while it runs. `dns.lookup` runs
 * getaddrinfo on libuv's thread pool (4 threads by default, shared with file and crypto work); a merchant whose
 * name servers do not answer would otherwise take every thread for their timeout with connections to that one
 * host name, and every other webhook's new connection would wait behind them. (Several such host names can still
 * take a thread each.) Nothing is cached beyond the running lookup, so a changed DNS answer counts from the next
 * lookup on, and each caller still checks what it gets.
 */
export function coalescedLookup(lookup: AllAddressesLookup): AllAddressesLookup {
  const running = new Map<string, AllAddressesCallback[]>();
  return (hostname, options, callback) => {
    const key = `${options.family} ${hostname}`;
    const waiting = running.get(key);
    if (waiting) {
      waiting.push(callback);
      return;
    }
    const callbacks = [callback];
    running.set(key, callbacks);
    const answer: AllAddressesCallback = (error, addresses) => {
      running.delete(key);
      for (const done of callbacks) {
        // One caller's failure must not keep the others waiting.
        try {
          done(error, addresses);
        } catch (callbackError) {
          queueMicrotask(() => {
            throw callbackError;
          });
        }
      }
    };
    try {
      lookup(hostname, options, answer);
    } catch (error) {
      answer(error as NodeJS.ErrnoException, []);
    }
  };
}
