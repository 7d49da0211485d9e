import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { insertMerchant, testEnv } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { BackendUserEntity } from './backend-user.entity.js';
import { BackendUserExceptionCode } from './backend-user.exception.js';
import { BackendUserRepository } from './backend-user.repository.js';
import { BackendUserService } from './backend-user.service.js';
import { MerchantRef } from './merchant-ref.entity.js';
import { PasswordHasher } from './password.hasher.js';

/** The platform's creation of merchant backend logins, on a real database as webhook-config's role. */
describe('BackendUserService (real PostgreSQL)', () => {
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  // Cheap scrypt parameters: the hashing itself has its own spec.
  const hasher = new PasswordHasher({ N: 2 ** 10, r: 8, p: 1 });
  let db: DataSource;
  let users: BackendUserService;

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({
        url: testEnv().databaseUrl,
        entities: [BackendUserEntity, MerchantRef],
        poolSize: 2,
        ...WEBHOOK_CONFIG_DATABASE,
      }),
    ).initialize();
    users = new BackendUserService(
      new BackendUserRepository(db.getRepository(BackendUserEntity), db.getRepository(MerchantRef)),
      hasher,
    );
  });
  afterAll(async () => {
    await db.destroy();
    await admin.end();
  });

  const codeOf = (work: Promise<unknown>) =>
    work.then(
      () => 'created',
      (error: { code?: string }) => error.code,
    );

  it('creates a login with its e-mail normalized and only a hash of its password stored', async () => {
    const merchantId = await insertMerchant(admin);
    const local = `Jane.${randomUUID().slice(0, 8)}`;
    const created = await users.create(merchantId, {
      email: ` ${local}@Example.COM `,
      password: 'correct horse battery',
    });
    expect(created.email).toBe(`${local}@example.com`.toLowerCase());
    const [row] = (
      await admin.query(`SELECT merchant_id, email, password_hash FROM backend_user WHERE id = $1`, [created.id])
    ).rows;
    expect(row.merchant_id).toBe(merchantId);
    expect(row.email).toBe(created.email);
    expect(row.password_hash).not.toContain('correct horse battery');
    expect(await hasher.verify('correct horse battery', row.password_hash)).toBe(true);
  });

  it('refuses an unknown merchant, a password containing the e-mail, and an e-mail already taken (any case)', async () => {
    const merchantId = await insertMerchant(admin);
    const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
    expect(await codeOf(users.create(randomUUID(), { email, password: 'correct horse battery' }))).toBe(
      BackendUserExceptionCode.MERCHANT_NOT_FOUND,
    );
    const local = email.split('@')[0];
    expect(await codeOf(users.create(merchantId, { email, password: `My${local.toUpperCase()}pass!` }))).toBe(
      BackendUserExceptionCode.PASSWORD_CONTAINS_EMAIL,
    );
    expect(await codeOf(users.create(merchantId, { email, password: 'correct horse battery' }))).toBe('created');
    expect(await codeOf(users.create(merchantId, { email: email.toUpperCase(), password: 'another good one' }))).toBe(
      BackendUserExceptionCode.EMAIL_TAKEN,
    );
    const count = await admin.query(`SELECT 1 FROM backend_user WHERE lower(email) = $1`, [email]);
    expect(count.rowCount).toBe(1);
  });
});
