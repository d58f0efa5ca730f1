import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import type { AlertPayload } from './alert-outbox.js';

export interface ClaimedDelivery {
  readonly delivery_id: string;
  readonly org_id: string;
  readonly event_id: string;
  readonly channel: 'webhook' | 'email';
  readonly endpoint_id: string | null;
  readonly email: string | null;
  readonly payload: AlertPayload;
  /** This attempt's number (1 for the first). */
  readonly attempts: number;
  readonly attempts_before_replay: number;
}

export interface AttemptOutcome {
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly ok: boolean;
}

/** The delivery outbox: claims under a lease (SKIP LOCKED: nodes claiming at once take different rows), attempts. */
@Injectable()
export class AlertDeliveriesRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims the most overdue pending delivery whose lease is free or lapsed (its node died mid-attempt) for
   * `leaseMs`, counting the attempt.
   */
  async claim(owner: string, leaseMs: number): Promise<ClaimedDelivery | null> {
    const result = await this.db.query<ClaimedDelivery>(
      `UPDATE alert_deliveries SET lease_owner = $1,
         lease_expires_at = now() + make_interval(secs => $2::double precision / 1000), attempts = attempts + 1
       WHERE delivery_id = (
         SELECT delivery_id FROM alert_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now()
           AND (lease_expires_at IS NULL OR lease_expires_at < now())
         ORDER BY next_attempt_at
         LIMIT 1
         FOR UPDATE SKIP LOCKED)
       RETURNING delivery_id, org_id, event_id, channel, endpoint_id, email, payload, attempts, attempts_before_replay`,
      [owner, leaseMs],
    );
    return result.rows[0] ?? null;
  }

  /**
   * Records the attempt and what follows: done, another attempt after `retryInMs`, or given up (`retryInMs` null).
   * Only while the lease is still this owner's: a node whose lease lapsed does not overwrite its successor's work.
   */
  async finish(
    delivery: ClaimedDelivery,
    owner: string,
    outcome: AttemptOutcome,
    retryInMs: number | null,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO alert_delivery_attempts (delivery_id, attempt, node, started_at, duration_ms, status_code, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [
          delivery.delivery_id,
          delivery.attempts,
          owner,
          outcome.startedAt,
          outcome.durationMs,
          outcome.statusCode,
          outcome.error,
        ],
      );
      const status = outcome.ok ? 'succeeded' : retryInMs === null ? 'failed' : 'pending';
      await tx.query(
        `UPDATE alert_deliveries SET status = $3, lease_owner = NULL, lease_expires_at = NULL,
           next_attempt_at = now() + make_interval(secs => $4::double precision / 1000)
         WHERE delivery_id = $1 AND lease_owner = $2`,
        [delivery.delivery_id, owner, status, retryInMs ?? 0],
      );
    });
  }

  /** Sends a delivery again now, with a fresh retry schedule; false when it is not the organization's endpoint's. */
  async replay(orgId: string, endpointId: string, deliveryId: string): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE alert_deliveries SET status = 'pending', next_attempt_at = now(), attempts_before_replay = attempts
       WHERE delivery_id = $1 AND org_id = $2 AND endpoint_id = $3`,
      [deliveryId, orgId, endpointId],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
