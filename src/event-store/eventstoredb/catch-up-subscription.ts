import type { AllStreamResolvedEvent } from '@eventstore/db-client';
import type { AllSubscription, From, RecordedEvent, SubscriptionBatch } from '../event-store.port.js';
import { isAfter, isUserEvent } from './all-stream-selection.js';
import { CatchUpTracker } from './catch-up-tracker.js';
import { toRecordedEvent } from './to-recorded-event.js';

/** The parts of the client's `AllStreamSubscription` (a Node readable in object mode) used here. */
export interface CatchUpSource {
  read(): AllStreamResolvedEvent | null;
  readonly readableLength: number;
  on(event: 'readable', listener: () => void): this;
  on(event: 'end', listener: () => void): this;
  on(event: 'caughtUp', listener: () => void): this;
  on(event: 'fellBehind', listener: () => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  unsubscribe(): Promise<void>;
  destroy(): this;
}

export interface StartedSource {
  readonly source: CatchUpSource;
  /** Head position read before the subscription started (see CatchUpTracker). */
  readonly head: From;
}

/**
 * Turns the client's catch-up subscription into the port's batches: records already buffered are taken together
 * (up to `batchSize`), the record at `from` and system events are dropped, and `caughtUp` follows CatchUpTracker.
 * The source is started on the first `next()`, so a subscription that is never iterated costs nothing.
 */
export class CatchUpSubscription implements AllSubscription {
  private iterated = false;
  private closed = false;
  private closing: Promise<void> | undefined;
  private started: Promise<StartedSource> | undefined;
  private failure: Error | undefined;
  private ended = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly from: From,
    private readonly batchSize: number,
    private readonly start: () => Promise<StartedSource>,
  ) {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be >= 1, got ${batchSize}`);
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionBatch> {
    if (this.iterated) throw new Error('a subscription can only be iterated once');
    this.iterated = true;
    return this.batches();
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async *batches(): AsyncGenerator<SubscriptionBatch> {
    try {
      if (this.closed) return;
      this.started = this.start();
      const { source, head } = await this.started;
      const tracker = new CatchUpTracker(head, this.from);
      this.listen(source, tracker);
      let reportedLive = false;
      while (!this.closed) {
        const events = this.takeBatch(source, tracker);
        if (events.length > 0 || (tracker.live && !reportedLive)) {
          reportedLive = tracker.live;
          yield { events, caughtUp: tracker.live };
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) throw new Error('EventStoreDB subscription ended without being closed');
        await new Promise<void>((resolve) => (this.wakeUp = resolve));
      }
    } finally {
      await this.close();
    }
  }

  private takeBatch(source: CatchUpSource, tracker: CatchUpTracker): RecordedEvent[] {
    const events: RecordedEvent[] = [];
    while (events.length < this.batchSize) {
      const resolved = source.read();
      if (resolved === null) break;
      const record = resolved.event;
      tracker.consumed(record?.position);
      if (record && isAfter(record.position, this.from) && isUserEvent(record)) events.push(toRecordedEvent(record));
    }
    return events;
  }

  private listen(source: CatchUpSource, tracker: CatchUpTracker): void {
    source
      .on('readable', this.wake)
      .on('caughtUp', () => {
        tracker.signal(true, source.readableLength);
        this.wake();
      })
      .on('fellBehind', () => {
        tracker.signal(false, source.readableLength);
        this.wake();
      })
      .on('end', () => {
        this.ended = true;
        this.wake();
      })
      .on('error', (error) => {
        this.failure ??= error;
        this.wake();
      });
  }

  private readonly wake = (): void => {
    const resolve = this.wakeUp;
    this.wakeUp = undefined;
    resolve?.();
  };

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.wake();
    const started = await this.started?.catch(() => undefined);
    if (!started) return;
    // A stream that failed to open has nothing left to cancel; closing must still succeed.
    await started.source.unsubscribe().catch(() => undefined);
    started.source.destroy();
  }
}
