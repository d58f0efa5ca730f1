import { Logger } from '@nestjs/common';
import { BackendPriority } from '../../database/backend-priority.js';
import type { Queryable } from '../../database/database.js';
import { TRANSLATION } from './bm25.js';

const COMPUTE_TRANSLATIONS_SQL = 'SELECT search_translations_compute($1::text[], $2::int, $3::int, $4::float8)';

/**
 * Terms learned per statement: a statement holds a connection for 20–80 ms. On one backend (embedded) a term at a
 * time, since a search that arrives meanwhile waits for the statement.
 */
export const LEARN_BATCH = 2;
const LEARN_BATCH_SINGLE_BACKEND = 1;
/** Terms waiting beyond this are dropped (they are asked for again by the next query that uses them). */
const MAX_PENDING = 10_000;

/**
 * Learns term translations (migration 025) off the query path: a query's analysis names the terms that have none yet
 * or whose corpus has changed size, and they are computed in the background, one small batch at a time, so that a
 * query never waits for them; the next queries with those terms use them. On one backend (embedded mode) a batch
 * waits for a moment without searches (BackendPriority): learning never queues ahead of a search. Every node may learn
 * the same term: the last write wins, and both computed the same thing.
 */
export class TermTranslations {
  private readonly logger = new Logger('TermTranslations');
  private readonly pending = new Set<string>();
  /** The batch being learned: not queued again by queries that analyse it meanwhile. */
  private inFlight: readonly string[] = [];
  private running: Promise<void> | null = null;
  private closed = false;
  /** Terms learned since start (for the evaluation and benchmark output). */
  learned = 0;
  /** Batches that failed (logged; their terms are asked for again by later queries). */
  failed = 0;

  constructor(
    private readonly sql: Queryable,
    private readonly priority = new BackendPriority(false),
  ) {}

  /** Queues terms to learn; returns at once. */
  request(lexemes: Iterable<string>): void {
    if (this.closed) return;
    for (const lexeme of lexemes) {
      if (this.pending.size >= MAX_PENDING) break;
      if (!this.inFlight.includes(lexeme)) this.pending.add(lexeme);
    }
    this.start();
  }

  private start(): void {
    if (this.running || this.pending.size === 0 || this.closed) return;
    this.running = this.drain().finally(() => {
      this.running = null;
      this.start(); // terms queued after the loop's last look
    });
  }

  /** Resolves once every queued term has been learned (or failed). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops learning: the batch in flight finishes, the rest is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    this.pending.clear();
    await this.idle();
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0 && !this.closed) {
      const size = this.priority.singleBackend ? LEARN_BATCH_SINGLE_BACKEND : LEARN_BATCH;
      const batch = [...this.pending].slice(0, size).sort();
      for (const lexeme of batch) this.pending.delete(lexeme);
      this.inFlight = batch;
      try {
        await this.priority.background(() => learnTranslations(this.sql, batch));
        this.learned += batch.length;
      } catch (error) {
        // Search works without translations; the terms are asked for again by a later query.
        this.failed++;
        if (!this.closed) this.logger.warn(`learning translations failed: ${(error as Error).message}`);
      } finally {
        this.inFlight = [];
      }
    }
  }
}

/** Learns (or learns again) the translations of `lexemes`, in one statement. */
export async function learnTranslations(sql: Queryable, lexemes: readonly string[]): Promise<void> {
  await sql.query(COMPUTE_TRANSLATIONS_SQL, [lexemes, TRANSLATION.sample, TRANSLATION.perTerm, TRANSLATION.maxDfRatio]);
}

/**
 * The index's terms whose translations are missing or stale (see chooseTranslations), most widespread first: what
 * `npm run cli -- translations learn` learns ahead of the queries.
 */
export const UNLEARNED_TERMS_SQL = `
SELECT t.lexeme
FROM search_terms t
CROSS JOIN search_corpus_stats c
LEFT JOIN search_translations s ON s.lexeme = t.lexeme
WHERE t.df >= 2 AND t.df < c.doc_count
  AND (s.lexeme IS NULL OR c.doc_count > s.doc_count * $1::float8 OR c.doc_count * $1::float8 < s.doc_count)
ORDER BY t.df DESC, t.lexeme COLLATE "C"
LIMIT $2::bigint`;

/** A term's translations as stored: parallel arrays, and the corpus size they were learned at. */
export interface StoredTranslations {
  readonly lexemes: readonly string[];
  readonly weights: readonly number[];
  readonly docCount: number;
}

/** A translation as ranking uses it: an occurrence of `target` counts `share` of an occurrence of `source`. */
export interface Translation {
  readonly source: string;
  readonly target: string;
  readonly share: number;
}

/**
 * The translations a query ranks with (those of its `translatedTerms` rarest terms that have been learned, even at an
 * older corpus size) and the terms to learn (not learned yet, or learned at a size `refreshFactor` away from today's).
 * Terms in a single document have no co-occurrence to learn from.
 */
export function chooseTranslations(
  terms: readonly { lexeme: string; df: number; translations: StoredTranslations | null }[],
  docCount: number,
): { translations: Translation[]; toLearn: string[] } {
  if (docCount < TRANSLATION.minDocuments) return { translations: [], toLearn: [] };
  const rarest = terms
    .filter((term) => term.df >= 2 && term.df < docCount)
    .sort((a, b) => a.df - b.df || (a.lexeme < b.lexeme ? -1 : 1))
    .slice(0, TRANSLATION.translatedTerms);
  const translations: Translation[] = [];
  const toLearn: string[] = [];
  for (const term of rarest) {
    const stored = term.translations;
    const ratio = stored && stored.docCount > 0 ? docCount / stored.docCount : Infinity;
    if (ratio > TRANSLATION.refreshFactor || ratio < 1 / TRANSLATION.refreshFactor) toLearn.push(term.lexeme);
    stored?.lexemes.forEach((target, i) =>
      translations.push({ source: term.lexeme, target, share: TRANSLATION.share * (stored.weights[i] ?? 0) }),
    );
  }
  return { translations, toLearn };
}
