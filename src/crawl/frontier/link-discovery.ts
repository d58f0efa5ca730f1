import { keyOf } from '../../documents/normalize-url.js';
import { isAssetUrl } from '../url-kinds.js';
import type { Candidate, Entry } from './frontier-entries.js';
import type { PageVisit } from './frontier-plan.js';
import type { RunState } from './run-state.js';

/**
 * Finding a run's next pages: a visited page's new links (up to `max_breadth`, passing the filters and robots.txt,
 * best first with instructions), and the start URL's sitemap pages.
 */
export class LinkDiscovery<P> {
  constructor(private readonly run: RunState<P>) {}

  /** The next level: from each visited page of this one, up to `max_breadth` new links, within the limit. */
  async discoverFrom(level: Entry<P>[], depth: number): Promise<void> {
    const chosen: Candidate[] = [];
    const claimed = new Set<string>();
    for (const parent of level) chosen.push(...(await this.linksOf(parent, claimed)));
    for (const candidate of chosen) this.run.found.take(candidate, depth);
  }
  /**
   * A visited page's links to follow: up to `max_breadth` new ones (not already found, nor `claimed` by an earlier
   * page of its level) that pass the filters and robots.txt, best first with instructions. Marks the page read.
   */
  async linksOf(parent: Entry<P>, claimed: Set<string>): Promise<Candidate[]> {
    parent.linksRead = true;
    if (parent.state !== 'visited' || !parent.visit || parent.visit.noFollow) return [];
    const candidates = this.candidatesOf(parent.visit, claimed, true);
    if (this.run.found.isFull()) {
      // A full crawl takes nothing more: its links are only counted as left over (robots.txt not asked).
      for (const candidate of candidates.slice(0, this.run.plan.maxBreadth))
        this.run.found.overLimit.add(keyOf(candidate.url)!);
      return [];
    }
    if (this.run.ranker) candidates.sort((a, b) => b.score - a.score || a.order - b.order);
    const chosen: Candidate[] = [];
    for (const candidate of candidates) {
      if (chosen.length >= this.run.plan.maxBreadth) break;
      if (!(await this.run.site.allowedByRobots(candidate.url))) continue;
      claimed.add(keyOf(candidate.url)!);
      chosen.push(candidate);
    }
    return chosen;
  }
  /** A page's links that are new (unknown, not claimed), pass the filters and are no assets, in page order. */
  candidatesOf(visit: PageVisit<P>, claimed: ReadonlySet<string>, noteAnchors: boolean): Candidate[] {
    const candidates: Candidate[] = [];
    const candidateKeys = new Set<string>();
    for (const link of visit.links) {
      const key = keyOf(link.url);
      if (!key) continue;
      const known = this.run.found.byKey.get(key);
      if (known) {
        if (noteAnchors && link.text && known.anchors.length < 10) known.anchors.push(link.text);
        continue;
      }
      if (claimed.has(key) || candidateKeys.has(key)) continue;
      const url = new URL(link.url);
      if (isAssetUrl(url) || !this.run.plan.filters.admits(url)) continue;
      const score = this.run.ranker ? this.run.ranker.linkScore(link.url, link.text, link.context) : 0;
      candidateKeys.add(key);
      candidates.push({ url: link.url, anchor: link.text, score, order: candidates.length });
    }
    return candidates;
  }
  async addSitemapPages(urls: string[]): Promise<void> {
    for (const url of urls) {
      if (this.run.signal.aborted) return;
      const key = keyOf(url);
      if (!key || this.run.found.byKey.has(key) || this.run.found.landed.has(key) || this.run.found.overLimit.has(key))
        continue;
      const parsed = new URL(url);
      if (isAssetUrl(parsed) || !this.run.plan.filters.admits(parsed)) continue;
      if (!this.run.found.hasRoom()) {
        // Past the limit: counted as left over (robots.txt not asked), not added.
        this.run.found.overLimit.add(key);
        continue;
      }
      if (!(await this.run.site.allowedByRobots(url))) continue;
      this.run.found.add(url, 1, [], true);
    }
  }
}
