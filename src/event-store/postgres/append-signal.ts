import { EventEmitter } from 'node:events';
import pg from 'pg';

/**
 * Wakes waiting subscriptions when events may have been appended: at once for appends of this process, through
 * LISTEN/NOTIFY for other processes when the server supports it, and by a poll interval in every case (an event
 * held back behind a still-running transaction becomes readable without any notification of its own).
 */
export class AppendSignal {
  private readonly emitter = new EventEmitter();
  private listener: pg.Client | undefined;

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
      client.on('notification', () => this.emitter.emit('appended'));
      await client.query('LISTEN event_store_appended');
      this.listener = client;
    } catch {
      await client.end().catch(() => {});
    }
  }

  notify(): void {
    this.emitter.emit('appended');
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
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
  }
}
