import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { BackendUserException, BackendUserExceptionCode } from './backend-user.exception.js';
import { BackendUserRepository } from './backend-user.repository.js';
import { normalizeEmail } from './dtos/create-backend-user.dto.js';
import { PasswordHasher } from './password.hasher.js';

export interface BackendUserView {
  id: string;
  email: string;
}

/** Creates merchant backend logins for the platform. */
@Injectable()
export class BackendUserService {
  constructor(
    private readonly users: BackendUserRepository,
    private readonly hasher: PasswordHasher,
  ) {}

  async create(merchantId: string, input: { email: string; password: string }): Promise<BackendUserView> {
    if (!(await this.users.merchantExists(merchantId))) {
      throw new BackendUserException('There is no merchant with this id.', BackendUserExceptionCode.MERCHANT_NOT_FOUND);
    }
    const email = normalizeEmail(input.email);
    const localPart = email.split('@')[0];
    if (localPart.length >= 4 && input.password.toLowerCase().includes(localPart)) {
      throw new BackendUserException(
        'password must not contain the e-mail address.',
        BackendUserExceptionCode.PASSWORD_CONTAINS_EMAIL,
        [{ field: 'password', message: 'must not contain the e-mail address' }],
      );
    }
    const id = randomUUID();
    const passwordHash = await this.hasher.hash(input.password);
    if (!(await this.users.insertIfEmailFree({ id, merchantId, email, passwordHash }))) {
      throw new BackendUserException(
        'A backend user with this e-mail address already exists.',
        BackendUserExceptionCode.EMAIL_TAKEN,
      );
    }
    return { id, email };
  }
}
