import { type Queryable, oftenRun } from '../../database/database.js';
import { WORD_LEXEMES_SQL } from './ranking-sql.js';

/** Enough for the words of many queries' candidates; past it the cache starts again (no eviction bookkeeping). */
const MAX_CACHED_WORDS = 50_000;

/**
 * The lexemes PostgreSQL's English analysis gives each word (none for a stop word), asked once per word and then
 * cached: passages, snippets and answers stem the words of their sentences through this, so that the stemming is
 * exactly the index's without sending whole texts to the database.
 */
export class WordLexemes {
  private readonly cache = new Map<string, readonly string[]>();

  constructor(
    private readonly sql: Queryable,
    /** Whether the statement may be named (prepared once per connection). */
    private readonly prepared = false,
  ) {}

  async lexemesOf(words: Iterable<string>): Promise<ReadonlyMap<string, readonly string[]>> {
    const found = new Map<string, readonly string[]>();
    const missing: string[] = [];
    for (const word of words) {
      const cached = this.cache.get(word);
      if (cached) found.set(word, cached);
      else if (!found.has(word)) missing.push(word);
    }
    if (missing.length === 0) return found;
    const { rows } = await oftenRun<{ word: string; lexemes: string[] }>(
      this.sql,
      this.prepared && 'search_word_lexemes',
      WORD_LEXEMES_SQL,
      [missing],
    );
    if (this.cache.size + rows.length > MAX_CACHED_WORDS) this.cache.clear();
    for (const row of rows) {
      this.cache.set(row.word, row.lexemes);
      found.set(row.word, row.lexemes);
    }
    return found;
  }
}
