import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { sha256Hex } from '../common/secrets.js';
import { Database } from '../database/database.js';
import { isSessionTokenFormat, newSessionToken } from './session-token.js';

export interface SessionUser {
  readonly sessionId: string;
  readonly userId: string;
  readonly email: string;
}

export interface IssuedSession {
  readonly token: string;
  readonly expiresAt: Date;
}

@Injectable()
export class SessionService {
  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issue(user: { userId: string; email: string }): Promise<IssuedSession> {
    const { token, hash } = newSessionToken();
    const expiresAt = new Date(Date.now() + this.config.sessionTtlSeconds * 1000);
    await this.db.query(
      'INSERT INTO auth_sessions (token_hash, session_id, user_id, email, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [hash, randomUUID(), user.userId, user.email, expiresAt],
    );
    return { token, expiresAt };
  }

  /** The session of a token, or null when it is malformed, unknown, expired or signed out. */
  async resolve(token: string): Promise<SessionUser | null> {
    if (!isSessionTokenFormat(token)) return null;
    const result = await this.db.query<{ session_id: string; user_id: string; email: string }>(
      `SELECT session_id, user_id, email FROM auth_sessions
       WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > now()`,
      [sha256Hex(token)],
    );
    const row = result.rows[0];
    return row ? { sessionId: row.session_id, userId: row.user_id, email: row.email } : null;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db.query('UPDATE auth_sessions SET revoked_at = now() WHERE session_id = $1 AND revoked_at IS NULL', [
      sessionId,
    ]);
  }
}
