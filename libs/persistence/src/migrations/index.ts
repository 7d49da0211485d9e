import { Merchants1763800000000 } from './1763800000000-merchants.js';

/** Every migration, oldest first. A new migration is a new file added at the end; applied ones are never edited. */
export const MIGRATIONS = [Merchants1763800000000];
