import { randomUUID } from 'node:crypto';
import type { NewEvent, RecordedEvent } from './event-store.port.js';

/** Who caused an event: a signed-in user, the operator CLI, the system itself, or an API key (metering). */
export interface Actor {
  readonly type: 'user' | 'operator' | 'system' | 'api_key';
  readonly id: string;
}

export interface EventMetadata {
  readonly schema_version: number;
  readonly occurred_at: string;
  readonly actor: Actor;
  readonly correlation_id?: string;
}

export interface DomainEvent<Type extends string, Data extends object> {
  readonly type: Type;
  readonly data: Data;
}

export function toNewEvent<T extends string, D extends object>(
  event: DomainEvent<T, D>,
  actor: Actor,
  options: { schemaVersion?: number; occurredAt?: Date; correlationId?: string; id?: string } = {},
): NewEvent {
  const metadata: EventMetadata = {
    schema_version: options.schemaVersion ?? 1,
    occurred_at: (options.occurredAt ?? new Date()).toISOString(),
    actor,
    ...(options.correlationId ? { correlation_id: options.correlationId } : {}),
  };
  return {
    id: options.id ?? randomUUID(),
    type: event.type,
    data: event.data as unknown as Record<string, unknown>,
    metadata: metadata as unknown as Record<string, unknown>,
  };
}

export function metadataOf(event: RecordedEvent): EventMetadata {
  const m = event.metadata as Partial<EventMetadata>;
  return {
    schema_version: typeof m.schema_version === 'number' ? m.schema_version : 1,
    occurred_at: typeof m.occurred_at === 'string' ? m.occurred_at : event.created.toISOString(),
    actor: m.actor ?? { type: 'system', id: 'unknown' },
    ...(m.correlation_id ? { correlation_id: m.correlation_id } : {}),
  };
}

/** The event's own time (from its metadata), which projections use so that a rebuild reproduces them exactly. */
export function occurredAt(event: RecordedEvent): Date {
  return new Date(metadataOf(event).occurred_at);
}
