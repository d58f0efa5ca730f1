import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Queryable } from '../../database/database.js';

/** At most one NOTIFY per this many milliseconds (the first at once): appends come much more often under load. */
const ANNOUNCE_SPACING_MS = 10;

/**
 * Wakes waiting subscriptions when events may have been appended: at once for appends of this process, through
 * LISTEN/NOTIFY for other processes when the server supports it, and by a poll interval in every case (an event
 * held back behind a still-running transaction becomes readable without any notification of its own).
 */
export class AppendSignal {
  private readonly emitter = new EventEmitter();
  /** The payload of this process's NOTIFYs, so that its own LISTEN skips them (`notify` told it already). */
  private readonly origin = randomUUID();
  private listener: pg.Client | undefined;
  private announcing: Promise<void> | undefined;
  private announceAgain = false;

  constructor(private readonly pollIntervalMs: number) {
    this.emitter.setMaxListeners(0);
  }

  async listen(connectionString: string): Promise<void> {
    const client = new pg.Client({ connectionString });
    client.on('error', () => {
      this.listener = undefined;
    });
    try {
      await client.connect();
      client.on('notification', (message) => {
        if (message.payload !== this.origin) this.emitter.emit('appended');
      });
      await client.query('LISTEN event_store_appended');
      this.listener = client;
    } catch {
      await client.end().catch(() => {});
    }
  }

  notify(): void {
    this.emitter.emit('appended');
  }

  /**
   * Tells the other processes that events were appended (NOTIFY), once the append has committed and not inside its
   * transaction: a transaction that notifies holds a database-wide lock from its commit until its WAL is flushed, so
   * appends that notified would commit one WAL flush after the other. A NOTIFY on its own writes no WAL and holds the
   * lock for a moment only. Never awaited by the append, and spaced: the appends made while one is on its way, or less
   * than ANNOUNCE_SPACING_MS after it, are covered by one more once that time is over (a lost one, by the listeners'
   * poll interval). Every listening backend of the database wakes for each NOTIFY.
   */
  announce(db: Queryable): void {
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    this.announceAgain = false;
    const sent = db.query("SELECT pg_notify('event_store_appended', $1)", [this.origin]).then(
      () => undefined,
      () => undefined,
    );
    const spaced = new Promise<void>((resolve) => setTimeout(resolve, ANNOUNCE_SPACING_MS));
    this.announcing = Promise.all([sent, spaced]).then(() => {
      this.announcing = undefined;
      if (this.announceAgain) this.announce(db);
    });
  }

  /** Resolves on the next append signal, after the poll interval, or when `signal` aborts. */
  wait(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off('appended', done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      this.emitter.once('appended', done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  async close(): Promise<void> {
    this.emitter.emit('appended');
    this.announceAgain = false;
    await this.announcing;
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
  }
}
