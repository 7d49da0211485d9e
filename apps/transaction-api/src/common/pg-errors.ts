import { isForeignKeyViolation } from '#persistence';
import { foreignIntegration, unknownMerchant } from '../merchant/merchant.exception.js';

/**
 * Maps a foreign-key violation (a merchant or integration that vanished between the reference check and the insert)
 * to the same MerchantException the check gives; rethrows anything else.
 */
export function rethrowReferenceViolation(error: unknown): never {
  if (isForeignKeyViolation(error)) {
    throw (error as { constraint?: string }).constraint?.includes('integration')
      ? foreignIntegration()
      : unknownMerchant();
  }
  throw error;
}
