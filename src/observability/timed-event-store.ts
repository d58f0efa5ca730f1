import type { Histogram } from 'prom-client';
import {
  type AllSubscription,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type From,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../event-store/event-store.port.js';

/** Decorates an event store adapter: times every append (event_store_append_duration_seconds), delegates the rest. */
export class TimedEventStore implements EventStore {
  constructor(
    readonly inner: EventStore,
    private readonly appendDuration: Histogram<'outcome'>,
  ) {}

  async appendToStream(
    stream: string,
    events: readonly NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> {
    const stop = this.appendDuration.startTimer();
    try {
      const result = await this.inner.appendToStream(stream, events, expectedRevision);
      stop({ outcome: 'ok' });
      return result;
    } catch (error) {
      stop({ outcome: error instanceof WrongExpectedVersionError ? 'conflict' : 'error' });
      throw error;
    }
  }

  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.inner.readStream(stream, options);
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.inner.readAll(options);
  }

  subscribeToAll(from: From, options?: { batchSize?: number }): AllSubscription {
    return this.inner.subscribeToAll(from, options);
  }

  headPosition(): Promise<From> {
    return this.inner.headPosition();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
