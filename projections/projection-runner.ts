import { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Database, Queryable } from '../src/database/database.js';
import {
  type EventStore,
  type From,
  type Position,
  type RecordedEvent,
  START,
  isAtOrAfter,
} from '../src/event-store/event-store.port.js';
import {
  type CatchUpResult,
  ProjectionTimeoutError,
  type ReadModelProgress,
} from '../src/event-store/read-model-progress.port.js';
import { ProjectionHeldError, applyBatch } from './apply-batch.js';
import { loadCheckpoint } from './checkpoint-store.js';
import type { Projector } from './projector.js';

/** How often a projector held off by a rebuild looks again. */
const HELD_RETRY_MS = 25;

export interface ProjectionRunnerOptions {
  readonly checkpointName: string;
  readonly projectors: readonly Projector[];
  readonly batchSize?: number;
  /**
   * Once caught up, how long to let appends gather after a batch before reading the next one, so that a steady
   * stream of charges is applied a few dozen at a time (one transaction, rows coalesced per organization) rather
   * than one transaction per append. Bounds the added projection lag. 0 applies as soon as woken (the service's
   * default is PROJECTION_GATHER_MS, 5).
   */
  readonly gatherMs?: number;
  /** How often a node that is not the leader tries to become it. */
  readonly leaderRetryMs?: number;
  readonly onError?: (error: unknown) => void;
  readonly onBatch?: (applied: number, position: From) => void;
}

/**
 * Keeps the read models of `db.schema` up to date from a catch-up subscription. One node at a time runs it (a
 * session advisory lock); every node can wait for a position through the checkpoint table.
 */
export class ProjectionRunner implements ReadModelProgress {
  private readonly progress = new EventEmitter();
  private stopped = false;
  private running: Promise<void> | undefined;
  private leaderClient: pg.PoolClient | undefined;
  private closeSubscription: (() => Promise<void>) | undefined;
  private lastKnown: From = START;
  private caughtUpOnce = false;
  private readonly eventListeners: ((events: readonly RecordedEvent[]) => void)[] = [];

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly options: ProjectionRunnerOptions,
  ) {
    this.progress.setMaxListeners(0);
  }

  /**
   * Called with every batch this node's subscription delivers once it is projected (also events another process
   * had already applied), so in-process caches can follow the events without a message bus.
   */
  onEvents(listener: (events: readonly RecordedEvent[]) => void): void {
    this.eventListeners.push(listener);
  }

  get isLeader(): boolean {
    return this.leaderClient !== undefined;
  }

  get hasCaughtUp(): boolean {
    return this.caughtUpOnce;
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.progress.emit('stopping');
    this.progress.emit('advanced');
    await this.closeSubscription?.();
    await this.running?.catch(() => {});
    if (this.leaderClient) {
      await this.leaderClient.query('SELECT pg_advisory_unlock(hashtext($1))', [this.lockName()]).catch(() => {});
      this.leaderClient.release();
      this.leaderClient = undefined;
    }
  }

  async checkpoint(): Promise<From> {
    const stored = await loadCheckpoint(this.db, this.options.checkpointName);
    if (stored !== START) this.lastKnown = stored;
    return stored;
  }

  checkpointIn(client: Queryable): Promise<From> {
    return loadCheckpoint(client, this.options.checkpointName);
  }

  /**
   * One catch-up pass for a process that does not run the projector (the operator CLI): applies batches from the
   * checkpoint until the store returns no more events, under the same advisory lock as the leader. When another
   * process holds the lock (a running server's projector), nothing is applied and `ran` is false: it will project.
   */
  async catchUp(): Promise<CatchUpResult> {
    if (this.leaderClient) return { ran: false, events: 0, position: await this.checkpoint() };
    const client = await this.db.pool.connect();
    try {
      const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
        this.lockName(),
      ]);
      if (!result.rows[0]?.locked) return { ran: false, events: 0, position: await this.checkpoint() };
      try {
        let position = await loadCheckpoint(this.db, this.options.checkpointName);
        let events = 0;
        for (;;) {
          const page = await this.store.readAll({ from: position, maxCount: this.options.batchSize ?? 500 });
          if (page.length === 0) break;
          const applied = await this.applyWhenNotHeld(page, client);
          if (applied === undefined) break;
          position = applied;
          events += page.length;
          this.lastKnown = position;
          this.options.onBatch?.(page.length, position);
          this.progress.emit('advanced');
        }
        return { ran: true, events, position };
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [this.lockName()]).catch(() => {});
      }
    } finally {
      client.release();
    }
  }

  /** Resolves (with that head) once the read models include every event stored when it is called; rejects after `timeoutMs`. */
  async waitForHead(timeoutMs: number): Promise<From> {
    const head = await this.store.headPosition();
    if (head !== START) await this.waitFor(head, timeoutMs);
    return head;
  }

  /** Resolves once the read models include `position` (read-your-writes); rejects after `timeoutMs`. */
  async waitFor(position: Position, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    if (isAtOrAfter(this.lastKnown, position)) return;
    while (!isAtOrAfter(await this.checkpoint(), position)) {
      const left = deadline - Date.now();
      if (left <= 0 || this.stopped) throw new ProjectionTimeoutError(timeoutMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, this.isLeader ? 250 : 20));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.progress.once('advanced', done);
      });
    }
  }

  /**
   * Applies a batch (on `lockClient`, or on a connection of its own); while a rebuild holds the projection (its
   * catch-up and swap), waits and tries again. Undefined when stopped meanwhile.
   */
  private async applyWhenNotHeld(
    events: readonly RecordedEvent[],
    lockClient?: pg.PoolClient,
  ): Promise<From | undefined> {
    for (;;) {
      const client = lockClient ?? (await this.db.pool.connect());
      let failed: Error | undefined;
      try {
        return await applyBatch(client, this.db.schema, this.options.checkpointName, this.options.projectors, events);
      } catch (error) {
        if (!(error instanceof ProjectionHeldError)) {
          failed = error as Error; // its connection may be lost or still busy: not reused
          throw error;
        }
      } finally {
        if (!lockClient) client.release(failed);
      }
      if (this.stopped) return undefined;
      await this.pause(HELD_RETRY_MS);
    }
  }

  /** Waits `ms`, or less when stop() is called. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.progress.off('stopping', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.progress.once('stopping', done);
    });
  }

  private lockName(): string {
    return `projection:${this.db.schema}:${this.options.checkpointName}`;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!(await this.becomeLeader())) {
          await this.pause(this.options.leaderRetryMs ?? 2000);
          continue;
        }
        await this.follow();
      } catch (error) {
        this.options.onError?.(error);
        await this.pause(500);
      }
    }
  }

  private async becomeLeader(): Promise<boolean> {
    if (this.leaderClient) return true;
    const client = await this.db.pool.connect();
    let locked: boolean | undefined;
    try {
      const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
        this.lockName(),
      ]);
      locked = result.rows[0]?.locked;
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    if (locked) {
      this.leaderClient = client;
      // The lock lives as long as this session: when its connection is lost, so is the leadership (another node may
      // take it). Stop following; the loop competes for the lock again.
      client.on('error', (error: Error) => {
        if (this.leaderClient !== client) return;
        this.leaderClient = undefined;
        client.release(error);
        void this.closeSubscription?.();
      });
      return true;
    }
    client.release();
    return false;
  }

  private async follow(): Promise<void> {
    const from = await loadCheckpoint(this.db, this.options.checkpointName);
    const subscription = this.store.subscribeToAll(from, { batchSize: this.options.batchSize ?? 500 });
    this.closeSubscription = () => subscription.close();
    try {
      for await (const batch of subscription) {
        if (this.stopped || !this.leaderClient) return;
        if (batch.events.length > 0) {
          const applied = await this.applyWhenNotHeld(batch.events);
          if (applied === undefined) return;
          this.lastKnown = applied;
          this.options.onBatch?.(batch.events.length, this.lastKnown);
          for (const listener of this.eventListeners) listener(batch.events);
        }
        if (batch.caughtUp) this.caughtUpOnce = true;
        this.progress.emit('advanced');
        // The subscription reads again as soon as it is asked: pausing here lets the appends of the next few
        // milliseconds land first, so they come as one batch. Only when live: catching up reads full pages anyway.
        const gatherMs = this.options.gatherMs ?? 0;
        if (batch.caughtUp && batch.events.length > 0 && gatherMs > 0) await this.pause(gatherMs);
      }
    } finally {
      this.closeSubscription = undefined;
      await subscription.close().catch(() => {});
    }
  }
}
