import type pg from 'pg';
import { isUnavailableDependency } from '../http/unavailable-dependency.js';
import { Database, type Queryable } from './database.js';
import { type Reads, readOnlySnapshot } from './reads.js';
import { ReplicaLagMonitor } from './replica-lag-monitor.js';
import type { FallbackReason, ReplicaMetrics } from './replica-metrics.js';

export interface ReplicaOptions {
  readonly url: string;
  /** Reads leave the replica once it is this far behind the primary. */
  readonly maxLagMs: number;
  readonly poolSize: number;
  readonly connectTimeoutMs: number;
  readonly queryTimeoutMs: number;
}

/** A replica's pool and the watch on its lag. */
interface Replica {
  readonly db: Database;
  readonly monitor: ReplicaLagMonitor;
  readonly maxLagMs: number;
}

// A standby cancels a read that holds back the replay of a change it conflicts with: the primary has no such conflict.
const RECOVERY_CONFLICT = /conflict with recovery/;

/**
 * Reads that tolerate a short lag, served by a streaming read replica while it is within `maxLagMs` of its primary,
 * else by the primary (and by the primary alone when no replica is configured). A read that fails on the replica with
 * a connection error is run again on the primary. Reads that must include a given change ask for `covering`. Writes,
 * transactions, and reads that must be exact use the primary Database itself, not this.
 */
export class ReplicaRouter implements Reads {
  private constructor(
    readonly primary: Database,
    private readonly replica: Replica | null,
    private readonly metrics: ReplicaMetrics,
    /** The `database` label of the metrics (main, index). */
    private readonly label: string,
  ) {}

  /** Without `replica`, every read goes to the primary. Call start() before use, close() at the end. */
  static create(primary: Database, replica: ReplicaOptions | undefined, metrics: ReplicaMetrics, label: string) {
    if (!replica) return new ReplicaRouter(primary, null, metrics, label);
    const db = Database.connect(replica.url, primary.schema, replica.poolSize, {
      connectMs: replica.connectTimeoutMs,
      queryMs: replica.queryTimeoutMs,
    });
    const lag = metrics.lag.labels({ database: label });
    const monitor = new ReplicaLagMonitor(primary.connectionString, replica.url, {
      intervalMs: Math.min(500, Math.max(50, Math.floor(replica.maxLagMs / 4))),
      timeoutMs: Math.min(2000, Math.max(250, replica.maxLagMs)),
      onMeasured: (lagMs) => lag.set(lagMs === null ? Number.NaN : lagMs / 1000),
    });
    return new ReplicaRouter(primary, { db, monitor, maxLagMs: replica.maxLagMs }, metrics, label);
  }

  get hasReplica(): boolean {
    return this.replica !== null;
  }

  async start(): Promise<void> {
    await this.replica?.monitor.start();
  }

  async close(): Promise<void> {
    if (!this.replica) return;
    await this.replica.monitor.stop();
    await this.replica.db.close().catch(() => {});
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    textOrConfig: string | pg.QueryConfig,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    return this.run(this.choose(), (db) =>
      typeof textOrConfig === 'string' ? db.query<R>(textOrConfig, values) : db.query<R>(textOrConfig),
    );
  }

  snapshot<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.run(this.choose(), (db) => readOnlySnapshot(db, work));
  }

  /**
   * Reads pinned to the replica when it is within the bound and `covers` (run on it) says it holds what the caller
   * must see, such as a read model's checkpoint at a position; else to the primary.
   */
  async covering(covers: (replica: Queryable) => Promise<boolean>): Promise<Reads> {
    const choice = this.choose();
    if (choice.db === this.primary) return this.pinned(choice);
    try {
      return this.pinned((await covers(choice.db)) ? choice : this.toPrimary('lag'));
    } catch (error) {
      // Whatever failed the check (a lost connection, a table the replica has not replayed yet), the primary answers.
      this.replicaFailed(error);
      return this.pinned(this.toPrimary('error'));
    }
  }

  /** Reads that go to the primary, counted as such. */
  onPrimary(): Reads {
    return this.pinned({ db: this.primary });
  }

  private pinned(choice: Choice): Reads {
    const run = <T>(work: (db: Database) => Promise<T>) => this.run(choice, work);
    return {
      query: ((textOrConfig: string | pg.QueryConfig, values?: unknown[]) =>
        run((db) =>
          typeof textOrConfig === 'string' ? db.query(textOrConfig, values) : db.query(textOrConfig),
        )) as Reads['query'],
      snapshot: (work) => run((db) => readOnlySnapshot(db, work)),
    };
  }

  private choose(): Choice {
    const replica = this.replica;
    if (!replica) return { db: this.primary };
    const problem = replica.monitor.currentProblem;
    if (problem) return this.toPrimary(problem);
    const lagMs = replica.monitor.lagMs();
    if (lagMs === null) return this.toPrimary('unavailable');
    if (lagMs > replica.maxLagMs) return this.toPrimary('lag');
    return { db: replica.db };
  }

  private toPrimary(reason: FallbackReason): Choice {
    return { db: this.primary, fallback: reason };
  }

  private async run<T>(choice: Choice, work: (db: Database) => Promise<T>): Promise<T> {
    if (choice.db === this.primary) {
      if (choice.fallback) this.metrics.fallbacks.inc({ database: this.label, reason: choice.fallback });
      this.served('primary');
      return work(this.primary);
    }
    try {
      const result = await work(choice.db);
      this.served('replica');
      return result;
    } catch (error) {
      if (!this.isReplicaFailure(error)) throw error;
      this.replicaFailed(error);
      this.metrics.fallbacks.inc({ database: this.label, reason: 'error' });
      this.served('primary');
      return work(this.primary);
    }
  }

  private served(by: 'replica' | 'primary'): void {
    this.metrics.reads.inc({ database: this.label, served_by: by });
  }

  private isReplicaFailure(error: unknown): boolean {
    return isUnavailableDependency(error) || RECOVERY_CONFLICT.test(String((error as Error)?.message));
  }

  private replicaFailed(error: unknown): void {
    if (isUnavailableDependency(error)) this.replica?.monitor.markUnavailable();
  }
}

/** Where a read goes, and why the primary when the replica could have served it. */
interface Choice {
  readonly db: Database;
  readonly fallback?: FallbackReason;
}
