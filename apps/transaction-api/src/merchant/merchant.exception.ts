import { DomainException } from '#platform';

export enum MerchantExceptionCode {
  NOT_FOUND = 'NOT_FOUND',
  /** A request names a merchant that does not exist. */
  UNKNOWN_MERCHANT = 'UNKNOWN_MERCHANT',
  /** A request names an integration that is not one of its merchant's. */
  FOREIGN_INTEGRATION = 'FOREIGN_INTEGRATION',
}

export class MerchantException extends DomainException<MerchantExceptionCode> {}

export const unknownMerchant = () =>
  new MerchantException('merchantId is not the id of a merchant.', MerchantExceptionCode.UNKNOWN_MERCHANT, [
    { field: 'merchantId', message: 'is not the id of a merchant' },
  ]);

export const foreignIntegration = () =>
  new MerchantException(
    'integrationId is not an integration of this merchant.',
    MerchantExceptionCode.FOREIGN_INTEGRATION,
    [{ field: 'integrationId', message: 'is not an integration of this merchant' }],
  );
