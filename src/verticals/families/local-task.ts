import type { DocumentFilter, LocalDocument, LocalDocuments } from '../local/local-documents.js';
import { mentionsAny, queryTerms } from '../merge.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { Task } from './provider-tasks.js';

/** Pages of the local index read per vertical search (each may hold several records). */
const LOCAL_PAGES = 50;

/**
 * Records of the local index: pages that may hold them and mention the query, read in rank order; on a page with
 * several records, those that mention the query themselves (when some do); records naming the query come first.
 */
export function localTask<T>(
  local: LocalDocuments,
  request: VerticalRequest,
  filter: Omit<DocumentFilter, 'limit'>,
  extract: (doc: LocalDocument) => T[],
  textOf: (item: T) => string,
  keep: (item: T) => boolean = () => true,
): Task<T> {
  return async () => {
    const documents = await local.find(request.query, { ...filter, limit: LOCAL_PAGES });
    const terms = queryTerms(request.query);
    const records: T[] = [];
    for (const doc of documents) {
      let items = extract(doc).filter(keep);
      if (items.length > 1 && terms.length > 0) {
        const mentioning = items.filter((item) => mentionsAny(textOf(item), terms));
        if (mentioning.length > 0) items = mentioning;
      }
      records.push(...items);
    }
    // Records that name the query themselves before those found on a page that merely mentions it.
    if (terms.length === 0) return records;
    const named = records.filter((item) => mentionsAny(textOf(item), terms));
    return [...named, ...records.filter((item) => !named.includes(item))];
  };
}
