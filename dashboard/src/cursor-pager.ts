import { h } from './dom.js';

/** What a pager's buttons say, and what it shows before them (the ledger's page number). */
export interface PagerOptions {
  readonly back?: string;
  readonly forward?: string;
  readonly status?: Node | null;
}

/**
 * "← Newer" and "Older →" for a list paged by cursor, newest first (the request log, the audit log; the ledger names
 * them by page, as it may run oldest first): the URL keeps the filters, the current cursor and the cursors of the
 * pages before it (`prev`), so a page can be bookmarked and stepped back from.
 */
export function cursorPager(
  label: string,
  filters: URLSearchParams,
  cursor: string | null,
  previous: string[],
  nextCursor: string | null,
  go: (params: URLSearchParams) => void,
  options: PagerOptions = {},
): HTMLElement {
  const nav = h('nav', { class: 'pager', 'aria-label': label }, options.status ?? null);
  if (cursor) {
    const back = new URLSearchParams(filters);
    const last = previous.at(-1);
    if (last) back.set('cursor', last);
    for (const p of previous.slice(0, -1)) back.append('prev', p);
    nav.append(
      h('button', { type: 'button', class: 'button secondary', onclick: () => go(back) }, options.back ?? '← Newer'),
    );
  }
  if (nextCursor) {
    const next = new URLSearchParams(filters);
    next.set('cursor', nextCursor);
    for (const p of previous) next.append('prev', p);
    if (cursor) next.append('prev', cursor);
    nav.append(
      h('button', { type: 'button', class: 'button secondary', onclick: () => go(next) }, options.forward ?? 'Older →'),
    );
  }
  return nav;
}
