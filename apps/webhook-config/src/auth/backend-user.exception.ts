import { DomainException } from '#platform';

export enum BackendUserExceptionCode {
  MERCHANT_NOT_FOUND = 'MERCHANT_NOT_FOUND',
  PASSWORD_CONTAINS_EMAIL = 'PASSWORD_CONTAINS_EMAIL',
  EMAIL_TAKEN = 'EMAIL_TAKEN',
}

export class BackendUserException extends DomainException<BackendUserExceptionCode> {}
