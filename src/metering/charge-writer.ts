import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../event-store/domain-event.js';
import { toNewEvent } from '../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type NewEvent, type Position } from '../event-store/event-store.port.js';
import { type CreditsCharged, chargesStream } from './events/credits-charged.event.js';

interface Pending {
  readonly event: NewEvent;
  resolve(position: Position): void;
  reject(error: unknown): void;
}

const MAX_BATCH = 500;

/**
 * Group commit: charges for one stream that arrive while an append to it is in flight are appended together by
 * the next one. Each caller's promise resolves only once its own event is durable in the store.
 */
@Injectable()
export class ChargeWriter {
  private readonly queues = new Map<string, Pending[]>();
  private readonly flushing = new Set<string>();

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /** `at`: the charge's time (the call's arrival, which the request log shows too); now by default. */
  append(charge: CreditsCharged, actor: Actor, at?: Date): Promise<Position> {
    const stream = chargesStream(charge.data.org_id, charge.data.billing_month);
    const event = toNewEvent(charge, actor, { id: charge.data.charge_id, ...(at ? { occurredAt: at } : {}) });
    return new Promise<Position>((resolve, reject) => {
      const queue = this.queues.get(stream) ?? [];
      queue.push({ event, resolve, reject });
      this.queues.set(stream, queue);
      if (!this.flushing.has(stream)) void this.flush(stream);
    });
  }

  private async flush(stream: string): Promise<void> {
    this.flushing.add(stream);
    try {
      for (;;) {
        const queue = this.queues.get(stream);
        if (!queue || queue.length === 0) break;
        const batch = queue.splice(0, MAX_BATCH);
        try {
          const result = await this.store.appendToStream(
            stream,
            batch.map((p) => p.event),
            'any',
          );
          // Every event of one append is durable together; the last one's position covers them all.
          for (const pending of batch) pending.resolve(result.position);
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.queues.delete(stream);
      this.flushing.delete(stream);
    }
  }
}
