import type { Position, RecordedEvent } from '../event-store.port.js';

/** The fields of the client's recorded event that the port needs (the client's `RecordedEvent` fits it). */
export interface EsdbRecord {
  readonly streamId: string;
  readonly id: string;
  readonly revision: bigint;
  readonly type: string;
  readonly created: Date;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly position?: Position;
}

/**
 * Stream reads from servers older than 22.6 carry no position. Such events get this one, which sorts before
 * every real position, so nothing that waits for "a reader has passed this event" ever waits on it.
 */
export const UNKNOWN_POSITION: Position = Object.freeze({ commit: -1n, prepare: -1n });

/** What those servers send instead of a position: ulong.MaxValue for both parts. */
const SERVER_NO_POSITION = 2n ** 64n - 1n;

export function isKnownPosition(position: Position | undefined): position is Position {
  return (
    position !== undefined &&
    position.commit >= 0n &&
    position.commit !== SERVER_NO_POSITION &&
    position.prepare !== SERVER_NO_POSITION
  );
}

export class UnrepresentableEventError extends Error {
  constructor(record: EsdbRecord, part: 'data' | 'metadata') {
    super(`event ${record.id} (${record.type}) in stream ${record.streamId}: ${part} is not a JSON object`);
    this.name = 'UnrepresentableEventError';
  }
}

export function toRecordedEvent(record: EsdbRecord): RecordedEvent {
  const data = toJsonObject(record.data);
  if (data === undefined) throw new UnrepresentableEventError(record, 'data');
  const metadata = isAbsent(record.metadata) ? {} : toJsonObject(record.metadata);
  if (metadata === undefined) throw new UnrepresentableEventError(record, 'metadata');
  return {
    id: record.id,
    streamId: record.streamId,
    revision: record.revision,
    position: isKnownPosition(record.position) ? toPosition(record.position) : UNKNOWN_POSITION,
    type: record.type,
    data,
    metadata,
    created: record.created,
  };
}

export function toPosition(position: Position): Position {
  return { commit: position.commit, prepare: position.prepare };
}

function isAbsent(payload: unknown): boolean {
  return payload === undefined || payload === null || (payload instanceof Uint8Array && payload.length === 0);
}

/** JSON events arrive parsed; a binary payload (another writer's content type) must hold a JSON object. */
function toJsonObject(payload: unknown): Record<string, unknown> | undefined {
  if (payload instanceof Uint8Array) return toJsonObject(parseJson(Buffer.from(payload).toString('utf8')));
  return isJsonObject(payload) ? payload : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
