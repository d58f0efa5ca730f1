/**
 * The Database of the search index, page cache, request log and search feedback (the `index` migration set):
 * INDEX_DATABASE_URL's pool, or the main Database itself when that is unset. Inject it with
 * `@Inject(INDEX_DATABASE) db: Database`; a query never joins its tables with the main database's.
 */
export const INDEX_DATABASE = Symbol('INDEX_DATABASE');
