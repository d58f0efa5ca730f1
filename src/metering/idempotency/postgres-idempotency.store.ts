import type { Queryable } from '../../database/database.js';
import {
  COMPLETED_TTL_SECONDS,
  type Claim,
  type ClaimOwner,
  type IdempotencyRecord,
  type IdempotencyStore,
  RUNNING_TTL_SECONDS,
  type StoredResponse,
  decideClaim,
} from './idempotency.store.js';

/** Expired records are deleted at most this often (a claim of an expired key overwrites it anyway). */
const PURGE_EVERY_MS = 3600_000;

/**
 * Idempotency-Key records in a table of the service's database (the `idempotency_records` migration), for the
 * embedded mode: they survive a restart of the process, as the ledger does, so a retry after a crash replays or
 * takes over the call instead of running and billing it again. The same rules as the Redis store.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private lastPurge = Date.now();

  constructor(private readonly db: Queryable) {}

  async claim(key: string, fingerprint: string, owner: ClaimOwner): Promise<Claim> {
    this.purgeNowAndThen();
    const record: IdempotencyRecord = { fingerprint, ...owner };
    for (;;) {
      const inserted = await this.db.query(
        `INSERT INTO idempotency_records (key, record, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
         ON CONFLICT (key) DO UPDATE SET record = EXCLUDED.record, expires_at = EXCLUDED.expires_at
         WHERE idempotency_records.expires_at <= now()
         RETURNING 1`,
        [key, JSON.stringify(record), RUNNING_TTL_SECONDS],
      );
      if (inserted.rowCount === 1) return { state: 'claimed' };
      const existing = await this.db.query<{ record: string }>(
        'SELECT record FROM idempotency_records WHERE key = $1 AND expires_at > now()',
        [key],
      );
      const raw = existing.rows[0]?.record;
      if (raw !== undefined) return decideClaim(JSON.parse(raw) as IdempotencyRecord, fingerprint, raw);
      // It expired between the two statements: claim again.
    }
  }

  async prepare(key: string, fingerprint: string, owner: ClaimOwner, response: StoredResponse): Promise<void> {
    // Kept as long as a completed record: once its charge is durable, it is what a retry replays.
    await this.put(key, { fingerprint, ...owner, pending: response }, COMPLETED_TTL_SECONDS);
  }

  async complete(key: string, fingerprint: string, response: StoredResponse): Promise<void> {
    await this.put(key, { fingerprint, response }, COMPLETED_TTL_SECONDS);
  }

  async takeOver(key: string, raw: string, fingerprint: string, owner: ClaimOwner): Promise<boolean> {
    const record: IdempotencyRecord = { fingerprint, ...owner };
    const replaced = await this.db.query(
      `UPDATE idempotency_records SET record = $3, expires_at = now() + make_interval(secs => $4)
       WHERE key = $1 AND record = $2 AND expires_at > now()`,
      [key, raw, JSON.stringify(record), RUNNING_TTL_SECONDS],
    );
    return replaced.rowCount === 1;
  }

  async release(key: string): Promise<void> {
    await this.db.query('DELETE FROM idempotency_records WHERE key = $1', [key]);
  }

  async abandon(key: string, fingerprint: string, owner: ClaimOwner): Promise<void> {
    const record: IdempotencyRecord = { fingerprint, ...owner };
    await this.db.query('DELETE FROM idempotency_records WHERE key = $1 AND record = $2', [
      key,
      JSON.stringify(record),
    ]);
  }

  private async put(key: string, record: IdempotencyRecord, ttlSeconds: number): Promise<void> {
    await this.db.query(
      `INSERT INTO idempotency_records (key, record, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (key) DO UPDATE SET record = EXCLUDED.record, expires_at = EXCLUDED.expires_at`,
      [key, JSON.stringify(record), ttlSeconds],
    );
  }

  private purgeNowAndThen(): void {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    void this.db.query('DELETE FROM idempotency_records WHERE expires_at <= now()').catch(() => {});
  }
}
