import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { BackendSessionEntity } from './backend-session.entity.js';

/** The signed-in user a valid session belongs to. */
export interface ActiveSessionRow {
  id: string;
  userId: string;
  merchantId: string;
  email: string;
  lastSeenAt: Date;
}

@Injectable()
export class SessionRepository {
  constructor(@InjectRepository(BackendSessionEntity) private readonly sessions: Repository<BackendSessionEntity>) {}

  async create(
    session: Pick<BackendSessionEntity, 'id' | 'tokenHash' | 'userId' | 'merchantId' | 'expiresAt'>,
  ): Promise<void> {
    await this.sessions.insert(session);
  }

  /** The session with this token hash, if it has neither expired nor been idle for longer than `idleMs`. */
  async findActive(tokenHash: Buffer, idleMs: number): Promise<ActiveSessionRow | undefined> {
    const rows: ActiveSessionRow[] = await this.sessions.query(
      `SELECT s.id, s.user_id AS "userId", s.merchant_id AS "merchantId", u.email, s.last_seen_at AS "lastSeenAt"
         FROM backend_session s JOIN backend_user u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => $2)`,
      [tokenHash, idleMs / 1000],
    );
    return rows[0];
  }

  async touch(id: string): Promise<void> {
    await this.sessions.query(`UPDATE backend_session SET last_seen_at = now() WHERE id = $1`, [id]);
  }

  async delete(id: string): Promise<void> {
    await this.sessions.delete({ id });
  }

  /** Housekeeping at sign-in: sessions that can never be used again. */
  async deleteDead(idleMs: number): Promise<void> {
    await this.sessions.query(
      `DELETE FROM backend_session WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $1)`,
      [idleMs / 1000],
    );
  }
}
