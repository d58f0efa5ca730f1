import type { Database } from '../../database/database.js';
import type {
  AllSubscription,
  AppendResult,
  EventStore,
  ExpectedRevision,
  From,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscriptionBatch,
} from '../event-store.port.js';
import { AppendSignal } from './append-signal.js';
import { appendToStream } from './append-to-stream.js';
import { readAll, readHeadPosition } from './read-all.js';
import { readStream } from './read-stream.js';

export interface PostgresEventStoreOptions {
  /** Upper bound on how long a live subscription waits before it looks again without a signal. */
  readonly pollIntervalMs?: number;
  /** LISTEN for appends of other processes (needs a server that supports it). */
  readonly listen?: boolean;
  /** NOTIFY other processes after each append (default true; pointless where no process listens). */
  readonly announce?: boolean;
}

export class PostgresEventStore implements EventStore {
  private readonly signal: AppendSignal;

  private constructor(
    private readonly db: Database,
    pollIntervalMs: number,
    private readonly announce: boolean,
  ) {
    this.signal = new AppendSignal(pollIntervalMs);
  }

  /** The tables come from the `store` migration set (src/database/migrations). */
  static async create(db: Database, options: PostgresEventStoreOptions = {}): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(db, options.pollIntervalMs ?? 100, options.announce ?? true);
    if (options.listen) await store.signal.listen(db.connectionString);
    return store;
  }

  async appendToStream(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const result = await appendToStream(this.db, stream, events, expected);
    this.signal.notify();
    if (this.announce) this.signal.announce(this.db);
    return result;
  }

  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return readStream(this.db, stream, options);
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return readAll(this.db, options.from, options.maxCount);
  }

  headPosition(): Promise<From> {
    return readHeadPosition(this.db);
  }

  subscribeToAll(from: From, options: { batchSize?: number } = {}): AllSubscription {
    const batchSize = options.batchSize ?? 500;
    const abort = new AbortController();
    const readAll = (position: From) => this.readAll({ from: position, maxCount: batchSize });
    const waitForAppend = () => this.signal.wait(abort.signal);
    async function* batches(): AsyncGenerator<SubscriptionBatch> {
      let position = from;
      let live = false;
      while (!abort.signal.aborted) {
        const events = await readAll(position);
        if (abort.signal.aborted) return;
        if (events.length > 0) {
          position = events[events.length - 1]!.position;
          live = events.length < batchSize;
          yield { events, caughtUp: live };
          continue;
        }
        if (!live) {
          live = true;
          yield { events: [], caughtUp: true };
          continue;
        }
        await waitForAppend();
      }
    }
    const iterator = batches();
    return {
      [Symbol.asyncIterator]: () => iterator,
      close: async () => {
        abort.abort();
        await iterator.return(undefined);
      },
    };
  }

  async close(): Promise<void> {
    await this.signal.close();
  }
}
