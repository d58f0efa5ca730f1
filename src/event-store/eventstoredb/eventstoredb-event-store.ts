import {
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  FORWARDS,
  type Position as EsdbPosition,
  type ReadPosition,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
} from '@eventstore/db-client';
import {
  type AllSubscription,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type From,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  START,
  WrongExpectedVersionError,
} from '../event-store.port.js';
import { type AllRecord, lastUserPositionBefore, toReadPosition, userEventsAfter } from './all-stream-selection.js';
import { translateAppendError } from './append-error.js';
import { CatchUpSubscription } from './catch-up-subscription.js';
import { toActualRevision, toEsdbExpectedRevision } from './expected-revision.js';
import { UNKNOWN_POSITION, isKnownPosition, toPosition, toRecordedEvent } from './to-recorded-event.js';

const DEFAULT_BATCH_SIZE = 500;
/** $all is filtered here, not on the server (the client's readAll takes no filter): pages may be mostly system events. */
const MIN_ALL_PAGE_SIZE = 100;

export class EventStoreDbEventStore implements EventStore {
  constructor(private readonly client: EventStoreDBClient) {}

  /** e.g. `esdb://localhost:2113?tls=false` */
  static fromConnectionString(url: string): EventStoreDbEventStore {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(url));
  }

  async appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError(`appendToStream(${stream}) needs at least one event`);
    const result = await this.client
      .appendToStream(
        stream,
        events.map(({ id, type, data, metadata }) => jsonEvent({ id, type, data, metadata })),
        { expectedRevision: toEsdbExpectedRevision(expected) },
      )
      .catch((error: unknown) => {
        throw translateAppendError(error, stream, expected);
      });
    if (!result.success) {
      // Only with `throwOnAppendFailure=false` in the connection string.
      throw new WrongExpectedVersionError(stream, expected, toActualRevision(result.nextExpectedRevision));
    }
    return {
      nextExpectedRevision: result.nextExpectedRevision,
      position: result.position
        ? toPosition(result.position)
        : await this.positionOfRevision(stream, result.nextExpectedRevision),
    };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { fromRevision = 0n, maxCount } = options;
    if (maxCount !== undefined && maxCount <= 0) return [];
    try {
      const events: RecordedEvent[] = [];
      const read = this.client.readStream(stream, {
        fromRevision,
        direction: FORWARDS,
        ...(maxCount === undefined ? {} : { maxCount }),
      });
      for await (const resolved of read) {
        if (resolved.event) events.push(toRecordedEvent(resolved.event));
      }
      return events;
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
  }

  async readAll({ from, maxCount }: ReadAllOptions): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    let cursor = from;
    while (events.length < maxCount) {
      const pageSize = Math.max(maxCount - events.length + 1, MIN_ALL_PAGE_SIZE);
      const page = await this.readAllPage(toReadPosition(cursor), FORWARDS, pageSize);
      events.push(...userEventsAfter(page.records, cursor, maxCount - events.length));
      const last = page.records.at(-1);
      if (page.exhausted || !last) break;
      cursor = last.position;
    }
    return events;
  }

  subscribeToAll(from: From, options: { batchSize?: number } = {}): AllSubscription {
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    return new CatchUpSubscription(from, batchSize, async () => {
      const head = await this.headPosition();
      const source = this.client.subscribeToAll(
        { fromPosition: toReadPosition(from), filter: excludeSystemEvents() },
        { highWaterMark: batchSize },
      );
      return { head, source };
    });
  }

  async headPosition(): Promise<From> {
    let before: EsdbPosition | typeof END = END;
    let pageSize = 1;
    for (;;) {
      const page = await this.readAllPage(before, BACKWARDS, pageSize);
      const head = lastUserPositionBefore(page.records, before);
      if (head) return head;
      const last = page.records.at(-1);
      if (page.exhausted || !last) return START;
      before = last.position;
      pageSize = MIN_ALL_PAGE_SIZE;
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  /** `exhausted`: the server returned fewer records than asked, so $all has nothing more in that direction. */
  private async readAllPage(
    fromPosition: ReadPosition,
    direction: typeof FORWARDS | typeof BACKWARDS,
    maxCount: number,
  ): Promise<{ records: AllRecord[]; exhausted: boolean }> {
    const records: AllRecord[] = [];
    let received = 0;
    for await (const resolved of this.client.readAll({ fromPosition, direction, maxCount })) {
      received += 1;
      if (resolved.event) records.push(resolved.event);
    }
    return { records, exhausted: received < maxCount };
  }

  /**
   * Some server versions answer an idempotent re-append without a position. It is then that of the event now at
   * `revision` (the batch's last event); where stream reads carry no positions either (before 22.6), the head,
   * which is at or after it.
   */
  private async positionOfRevision(stream: string, revision: bigint): Promise<Position> {
    const [event] = await this.readStream(stream, { fromRevision: revision, maxCount: 1 });
    if (event && isKnownPosition(event.position)) return event.position;
    const head = await this.headPosition();
    return head === START ? UNKNOWN_POSITION : head;
  }
}

function isStreamNotFound(error: unknown): boolean {
  return error instanceof Error && isCommandError(error) && error.type === ErrorType.STREAM_NOT_FOUND;
}
