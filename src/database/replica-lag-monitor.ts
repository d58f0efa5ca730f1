import pg from 'pg';

/** Why the replica may not serve reads now, when it may not. */
export type ReplicaProblem = 'unavailable' | 'diverged';

export interface ReplicaLagMonitorOptions {
  /** How often the lag is measured. */
  readonly intervalMs: number;
  /** How long a measurement may wait for either server (connecting and answering). */
  readonly timeoutMs: number;
  /** Called after each measurement: the lag in milliseconds, or null when it could not be measured. */
  readonly onMeasured?: (lagMs: number | null) => void;
}

/** A point the primary's WAL had reached, and when it was seen there. */
interface WalSample {
  readonly at: number;
  readonly lsn: bigint;
}

const MAX_SAMPLES = 10_000;
/** A WAL position (an LSN) as a number of bytes, as text (the number outgrows a double). */
const walPosition = (lsn: string) => `pg_wal_lsn_diff(${lsn}, '0/0')::text`;

/**
 * Measures, off the request path, how far a streaming replica is behind its primary. Each measurement reads the
 * primary's WAL position and then the replica's replayed position; the lag is the age of the oldest primary position
 * seen that the replica has not replayed (0 when it has replayed all the primary had). Unlike the age of the last
 * replayed transaction, this stays 0 on an idle primary; it is exact to one measurement interval. A replica that does
 * not answer (or a primary that does not, when the lag cannot be told) is `unavailable`; one that has left recovery
 * (promoted) is `diverged`: it replays nothing more. Both last until a measurement finds it replaying again.
 */
export class ReplicaLagMonitor {
  private readonly primary: pg.Pool;
  private readonly replica: pg.Pool;
  private samples: WalSample[] = [];
  private measured: { at: number; lagMs: number } | null = null;
  private problem: ReplicaProblem | null = 'unavailable';
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    primaryUrl: string,
    replicaUrl: string,
    private readonly options: ReplicaLagMonitorOptions,
  ) {
    this.primary = monitorPool(primaryUrl, options.timeoutMs);
    this.replica = monitorPool(replicaUrl, options.timeoutMs);
  }

  /** Measures now, then every interval until stop(). */
  async start(): Promise<void> {
    await this.measure();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => {});
    await Promise.all([this.primary.end(), this.replica.end()]);
  }

  /**
   * The replica's lag at `now`, as far as it can be told: the last measurement plus the time since it was taken (the
   * replica may have stopped replaying right after it). Null when the replica may not serve reads (see `problem`).
   */
  lagMs(now = Date.now()): number | null {
    if (this.problem || !this.measured) return null;
    return this.measured.lagMs + Math.max(0, now - this.measured.at);
  }

  /** Why the replica may not serve reads, or null when it may (as far as its lag goes). */
  get currentProblem(): ReplicaProblem | null {
    return this.problem;
  }

  /** A read on the replica failed with a connection error: it is left until a measurement finds it answering. */
  markUnavailable(): void {
    this.problem = 'unavailable';
    this.measured = null;
  }

  /** One measurement (they never overlap: the next is scheduled when one ends). */
  measure(): Promise<void> {
    this.running ??= this.measureOnce().finally(() => (this.running = null));
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.measure().finally(() => this.schedule());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async measureOnce(): Promise<void> {
    const seenAt = Date.now();
    let primaryLsn: bigint;
    try {
      primaryLsn = BigInt(await singleValue(this.primary, `SELECT ${walPosition('pg_current_wal_lsn()')} AS v`));
    } catch {
      return this.unmeasured('unavailable');
    }
    // Kept while the replica is away too: when it is back, what it has not replayed since is still counted.
    const last = this.samples[this.samples.length - 1];
    if (!last || primaryLsn > last.lsn) this.samples.push({ at: seenAt, lsn: primaryLsn });
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
    let replica: { standby: boolean; replayed: string | null };
    try {
      const result = await this.replica.query<{ standby: boolean; replayed: string | null }>(
        `SELECT pg_is_in_recovery() AS standby, ${walPosition('pg_last_wal_replay_lsn()')} AS replayed`,
      );
      replica = result.rows[0]!;
    } catch {
      return this.unmeasured('unavailable');
    }
    if (!replica.standby || replica.replayed === null) return this.unmeasured('diverged');
    const replayed = BigInt(replica.replayed);
    this.samples = this.samples.filter((sample) => sample.lsn > replayed);
    const now = Date.now();
    const lagMs = this.samples.length === 0 ? 0 : now - this.samples[0]!.at;
    this.measured = { at: now, lagMs };
    this.problem = null;
    this.options.onMeasured?.(lagMs);
  }

  private unmeasured(problem: ReplicaProblem): void {
    this.problem = problem;
    this.measured = null;
    this.options.onMeasured?.(null);
  }
}

function monitorPool(connectionString: string, timeoutMs: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    idleTimeoutMillis: 60_000,
  });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

async function singleValue(pool: pg.Pool, text: string): Promise<string> {
  const result = await pool.query<{ v: string }>(text);
  return result.rows[0]!.v;
}
