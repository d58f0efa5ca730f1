import type { Queryable } from '../../database/database.js';
import { unfilteredSearchRequest } from '../search-request.js';
import type { ProviderSearchRequest } from './search-provider.port.js';

/** Searches run before the server listens, each of this many of the index's common terms. */
const WARM_UP_QUERIES = 8;
const WARM_UP_QUERY_TERMS = 12;
/** The warm-up stops after this long, whatever it has left (a large index on a slow machine). */
const WARM_UP_BUDGET_MS = 5_000;
/** Below this many documents a cold search is fast enough. */
const WARM_UP_MIN_DOCUMENTS = 1_000;

const COMMON_TERMS_SQL = `
SELECT t.lexeme
FROM search_terms t CROSS JOIN search_corpus_stats c
WHERE c.doc_count >= $2::bigint AND t.df >= 2 AND t.df < c.doc_count
ORDER BY t.df DESC, t.lexeme COLLATE "C"
LIMIT $1::bigint`;

/**
 * A freshly started embedded database (PGlite) runs its first searches 5–20 times slower than later ones: its
 * WebAssembly code is compiled as paths are first taken and the indexes' pages are read on first use (measured over
 * 5,183 abstracts: 2.1 s, then 0.7, 0.6, 0.55, 0.25 s, against 30 ms warm). A few searches over the index's common
 * terms, before the server listens, pay that instead of the first users.
 */
export async function warmUpLocalIndex(
  sql: Queryable,
  search: (request: ProviderSearchRequest) => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  const { rows } = await sql.query<{ lexeme: string }>(COMMON_TERMS_SQL, [
    WARM_UP_QUERIES * WARM_UP_QUERY_TERMS,
    WARM_UP_MIN_DOCUMENTS,
  ]);
  let searched = 0;
  for (let i = 0; i + WARM_UP_QUERY_TERMS <= rows.length && searched < WARM_UP_QUERIES; i += WARM_UP_QUERY_TERMS) {
    if (performance.now() - started > WARM_UP_BUDGET_MS) break;
    const query = rows.slice(i, i + WARM_UP_QUERY_TERMS).map((row) => row.lexeme);
    await search(unfilteredSearchRequest(query.join(' '), 'basic', 10));
    searched++;
  }
  return searched;
}
