import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import type { WebhookDeliveryDto } from '../dto/webhook.dto.js';

interface DeliveryRow {
  delivery_id: string;
  event_id: string;
  status: WebhookDeliveryDto['status'];
  next_attempt_at: Date;
  created_at: Date;
  payload: Record<string, unknown>;
  attempts: {
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
  }[];
}

/** The delivery log of one endpoint: its deliveries, newest first, each with its attempts in order. */
@Injectable()
export class WebhookDeliveryLog {
  constructor(private readonly db: Database) {}

  async deliveries(endpointId: string): Promise<WebhookDeliveryDto[]> {
    const rows = await this.db.query<DeliveryRow>(
      `SELECT d.delivery_id, d.event_id, d.status, d.next_attempt_at, d.created_at, d.payload,
         coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'started_at', a.started_at,
             'duration_ms', a.duration_ms, 'status_code', a.status_code, 'error', a.error) ORDER BY a.attempt)
           FROM alert_delivery_attempts a WHERE a.delivery_id = d.delivery_id), '[]') AS attempts
       FROM alert_deliveries d WHERE d.endpoint_id = $1
       ORDER BY d.created_at DESC, d.delivery_id LIMIT 100`,
      [endpointId],
    );
    return rows.rows.map((r) => ({
      id: r.delivery_id,
      event_id: r.event_id,
      status: r.status,
      next_attempt_at: r.status === 'pending' ? r.next_attempt_at.toISOString() : null,
      created_at: r.created_at.toISOString(),
      payload: r.payload,
      attempts: r.attempts.map((a) => ({ ...a, started_at: new Date(a.started_at).toISOString() })),
    }));
  }
}
