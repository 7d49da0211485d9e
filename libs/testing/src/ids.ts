import { randomUUIDv7 } from 'node:crypto';

/**
 * A version-7 UUID made at `time` (Unix ms): the id a row created then has (the dispatcher's deliveries and log
 * entries; their day partitions and bounded lookups go by it). For rows a test writes in the past.
 */
export function uuidV7At(time: number): string {
  const hex = Math.floor(time).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}${randomUUIDv7().slice(13)}`;
}
