import { Logger } from '@nestjs/common';
import type { Database } from './database.js';
import { quoteIdent } from './database.js';

/** PostgreSQL's autovacuum defaults: a table is due when its changes pass `threshold + scale × its live rows`. */
const VACUUM_THRESHOLD = 50;
const VACUUM_SCALE = 0.2;
const INSERT_THRESHOLD = 1000;
const INSERT_SCALE = 0.2;
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE = 0.1;

/** Tables up to this size are all seen to in one pass; of larger ones, one per pass. */
const SMALL_TABLE_BYTES = 8 * 1024 * 1024;

interface TableActivity {
  readonly relname: string;
  readonly bytes: string;
  readonly live: string;
  readonly dead: string;
  readonly inserted: string;
  readonly modified: string;
}

/** How far past autovacuum's thresholds a table is (above 1: due), and what it is due for. */
export function overdue(table: TableActivity): { work: 'vacuum' | 'analyze'; by: number } | null {
  const live = Number(table.live);
  const dead = Number(table.dead) / (VACUUM_THRESHOLD + VACUUM_SCALE * live);
  // Inserts alone: a vacuum sets the visibility map, so index-only scans need not visit the rows.
  const inserted = Number(table.inserted) / (INSERT_THRESHOLD + INSERT_SCALE * live);
  const modified = Number(table.modified) / (ANALYZE_THRESHOLD + ANALYZE_SCALE * live);
  if (dead > 1 || inserted > 1) return { work: 'vacuum', by: Math.max(dead, inserted) };
  if (modified > 1) return { work: 'analyze', by: modified };
  return null;
}

/**
 * Autovacuum for embedded mode. PGlite has no autovacuum worker: without this, its tables are never analyzed (the
 * planner guesses every selectivity) and never vacuumed (dead rows pile up, and index-only scans visit every row).
 * Every `intervalMs`, the tables of the schema past autovacuum's own default thresholds get what autovacuum would give
 * them: all the small ones, and one large one per pass, because PGlite runs one statement at a time and a vacuum holds
 * every other query of the process for as long as it takes.
 */
export class EmbeddedVacuum {
  private readonly logger = new Logger('EmbeddedVacuum');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly db: Database,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.pass()
        .catch((error: unknown) => this.logger.warn(`embedded vacuum failed: ${(error as Error).message}`))
        .finally(() => (this.running = null));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * One pass: every due table up to SMALL_TABLE_BYTES, and the most overdue larger one, get their vacuum or analyze,
   * most overdue first. Returns what it did.
   */
  async pass(): Promise<{ table: string; work: 'vacuum' | 'analyze' }[]> {
    const { rows } = await this.db.query<TableActivity>(
      `SELECT relname, pg_relation_size(relid) AS bytes, n_live_tup AS live, n_dead_tup AS dead,
              n_ins_since_vacuum AS inserted, n_mod_since_analyze AS modified
       FROM pg_stat_user_tables WHERE schemaname = $1`,
      [this.db.schema],
    );
    const due = rows
      .map((table) => ({ table, due: overdue(table) }))
      .filter((entry): entry is { table: TableActivity; due: NonNullable<ReturnType<typeof overdue>> } => !!entry.due)
      .sort((a, b) => b.due.by - a.due.by);
    const done: { table: string; work: 'vacuum' | 'analyze' }[] = [];
    let largeDone = false;
    for (const {
      table,
      due: { work },
    } of due) {
      const large = Number(table.bytes) > SMALL_TABLE_BYTES;
      if (large && largeDone) continue;
      largeDone ||= large;
      const name = `${quoteIdent(this.db.schema)}.${quoteIdent(table.relname)}`;
      const started = performance.now();
      await this.db.query(work === 'vacuum' ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
      this.logger.log(`${work} ${table.relname}: ${Math.round(performance.now() - started)} ms`);
      done.push({ table: table.relname, work });
    }
    return done;
  }
}
