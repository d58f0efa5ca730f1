import { Counter, Gauge, type Registry } from 'prom-client';

/** Where a read was served. */
export type ReadServer = 'replica' | 'primary';

/**
 * Why a read that could have gone to the replica went to the primary: the replica lags past the bound (or has not
 * replayed what the caller must see), does not answer, has left recovery (promoted: it replicates nothing more), or
 * failed the read with a connection error.
 */
export type FallbackReason = 'lag' | 'unavailable' | 'diverged' | 'error';

/**
 * The read replicas' metrics, once per registry, labelled by `database` (the main database, the index's): each
 * ReplicaRouter reports under its own label.
 */
export class ReplicaMetrics {
  readonly lag: Gauge<'database'>;
  readonly reads: Counter<'database' | 'served_by'>;
  readonly fallbacks: Counter<'database' | 'reason'>;

  constructor(registry: Registry) {
    this.lag = new Gauge({
      name: 'database_replica_lag_seconds',
      help: "How far the read replica's replay is behind the primary (NaN: not measured, the replica does not answer).",
      labelNames: ['database'],
      registers: [registry],
    });
    this.reads = new Counter({
      name: 'database_reads_total',
      help: 'Reads that may be served by the read replica, by where they were served (replica or primary).',
      labelNames: ['database', 'served_by'],
      registers: [registry],
    });
    this.fallbacks = new Counter({
      name: 'database_replica_fallbacks_total',
      help: 'Reads sent to the primary instead of the replica, by reason (lag, unavailable, diverged, error).',
      labelNames: ['database', 'reason'],
      registers: [registry],
    });
  }
}
