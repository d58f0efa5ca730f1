import { keyOf } from '../../documents/normalize-url.js';
import { categoriesFirst } from '../page-categories.js';
import { type RelevanceFields, pathOf } from '../relevance.js';
import { isAssetUrl } from '../url-kinds.js';
import type { Entry } from './frontier-entries.js';
import type { FrontierPage, FrontierStop } from './frontier-plan.js';
import type { LinkDiscovery } from './link-discovery.js';
import type { RunState } from './run-state.js';

/** Whether an entry is one of the results (before ranking and the limit). */
export function isResult<P>(run: RunState<P>, entry: Entry<P>): boolean {
  return (
    entry.listed &&
    ((entry.state === 'visited' && !entry.visit?.linksOnly) ||
      (entry.state === 'pending' && run.plan.mode === 'map')) &&
    (entry.depth === 0 || !isAssetUrl(new URL(entry.url)))
  );
}

/**
 * The results before the limit: in discovery order, or, with instructions, the relevant ones best first; with
 * categories, the pages of those kinds before the others.
 */
export function ranked<P>(run: RunState<P>): Entry<P>[] {
  return categoriesFirst(relevant(run), (entry) => entry.url, run.plan.categories ?? []);
}

function relevant<P>(run: RunState<P>): Entry<P>[] {
  const kept = run.found.all.filter((entry) => isResult(run, entry));
  if (!run.ranker) return kept;
  const fields = new Map<string, RelevanceFields>();
  for (const entry of kept) {
    fields.set(entry.key, {
      path: pathOf(entry.url),
      anchors: entry.anchors,
      title: entry.visit?.title ?? null,
      summary: entry.visit?.summary ?? null,
      content: entry.visit?.content ?? null,
    });
  }
  const byKey = new Map(kept.map((entry) => [entry.key, entry]));
  return run.ranker.rank(fields).map((key) => byKey.get(key)!);
}

export function results<P>(run: RunState<P>, ranked: Entry<P>[]): FrontierPage<P>[] {
  return ranked.slice(0, run.plan.limit).map((entry) => ({ url: entry.url, depth: entry.depth, visit: entry.visit }));
}

/**
 * Why the run ended with pages left, if it did. Left: the pages beyond the limit (found and not taken, or, for a
 * ranked map, found and ranked below the `limit` best); at the deadline also the pages found and not visited (a
 * map lists those: they are not left) and those not yet read from visited pages' links (up to `max_breadth` each,
 * robots.txt not asked).
 */
export function stopReason<P>(
  run: RunState<P>,
  discovery: LinkDiscovery<P>,
  timedOut: boolean,
  ranked: readonly Entry<P>[],
): FrontierStop | null {
  const left = new Set([...run.found.overLimit].filter((key) => !run.found.byKey.has(key)));
  for (const entry of ranked.slice(run.plan.limit)) left.add(entry.key);
  if (!timedOut) return left.size > 0 ? { by: 'limit', pagesLeft: left.size } : null;
  for (const entry of run.found.all) {
    if (entry.listed && entry.state === 'pending' && run.plan.mode === 'crawl') left.add(entry.key);
  }
  for (const entry of run.found.all) {
    if (entry.linksRead || entry.state !== 'visited' || !entry.visit || entry.depth >= run.plan.maxDepth) continue;
    if (entry.visit.noFollow) continue;
    const candidates = discovery.candidatesOf(entry.visit, left, false).slice(0, run.plan.maxBreadth);
    for (const candidate of candidates) left.add(keyOf(candidate.url)!);
  }
  return { by: 'timeout', pagesLeft: left.size };
}
