/**
 * The one event-store port. Two adapters implement it (PostgreSQL table store and EventStoreDB) and one
 * contract suite (event-store.contract.ts) keeps both honest.
 *
 * Positions follow EventStoreDB: a (commit, prepare) pair ordered lexicographically. The Postgres store uses
 * (transaction id, sequence number), which is what makes "read only what is safely committed" possible.
 */
export const EVENT_STORE = Symbol('EVENT_STORE');

export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export const START: unique symbol = Symbol('START');
export type From = Position | typeof START;

/** `no_stream`: the stream must not exist; `stream_exists`: it must; `any`: no check; bigint: exact last revision. */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;

export interface NewEvent {
  /** UUID. Appending an event id that is already in the stream at the same place is a no-op (idempotent). */
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
}

export interface RecordedEvent {
  readonly id: string;
  readonly streamId: string;
  /** 0-based revision of the event within its stream. */
  readonly revision: bigint;
  readonly position: Position;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
  readonly created: Date;
}

export interface AppendResult {
  /** Revision of the last event of the stream after the append. */
  readonly nextExpectedRevision: bigint;
  /** Position of the last appended event (read-your-writes waits for projections to pass it). */
  readonly position: Position;
}

export interface ReadStreamOptions {
  /** First revision to return (inclusive). Default 0. */
  readonly fromRevision?: bigint;
  readonly maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive lower bound; START reads from the beginning. */
  readonly from: From;
  readonly maxCount: number;
}

export interface SubscriptionBatch {
  readonly events: readonly RecordedEvent[];
  /** True once the subscription has delivered everything stored when the batch was read (it is now live). */
  readonly caughtUp: boolean;
}

export interface AllSubscription extends AsyncIterable<SubscriptionBatch> {
  close(): Promise<void>;
}

export interface EventStore {
  appendToStream(
    stream: string,
    events: readonly NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult>;
  /** Events of one stream in revision order; an absent stream reads as an empty list. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of every stream after `from`, in position order (system events excluded). */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up subscription: everything after `from`, then live events as they are appended. */
  subscribeToAll(from: From, options?: { batchSize?: number }): AllSubscription;
  /** Position of the last event every reader can see; START when the store is empty. */
  headPosition(): Promise<From>;
  close(): Promise<void>;
}

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`wrong expected version on stream ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersionError';
  }
}

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function isAtOrAfter(from: From, target: Position): boolean {
  return from !== START && comparePositions(from, target) >= 0;
}
