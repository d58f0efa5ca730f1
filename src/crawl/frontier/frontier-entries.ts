import type { PageVisit } from './frontier-plan.js';
import { keyOf } from '../../documents/normalize-url.js';

export type EntryState = 'pending' | 'visited' | 'failed' | 'duplicate';

export interface Candidate {
  readonly url: string;
  readonly anchor: string;
  readonly score: number;
  readonly order: number;
}

export interface Entry<P> {
  url: string;
  readonly key: string;
  readonly depth: number;
  readonly anchors: string[];
  /** False for a start page the filters exclude: visited for its links, never a result. */
  readonly listed: boolean;
  state: EntryState;
  visit: PageVisit<P> | null;
  /** Its links have been read for the next level. */
  linksRead: boolean;
  /** Resolves once its visit is over (whatever came of it). */
  readonly settled: Promise<void>;
  settle: () => void;
}

/**
 * The pages a run has found, in the order found: each once by its URL's key (and by the final URL a redirect landed
 * on), the pages not taken because the limit was reached, and the room left under it.
 */
export class FrontierEntries<P> {
  readonly all: Entry<P>[] = [];
  readonly byKey = new Map<string, Entry<P>>();
  /** Final URL keys of visited pages → the entry that holds the page. */
  readonly landed = new Map<string, Entry<P>>();
  /** Keys of pages found but not taken because the limit was reached. */
  readonly overLimit = new Set<string>();

  constructor(
    private readonly mode: 'map' | 'crawl',
    /** The most results the run may hold. */
    private readonly capacity: number,
    /** Called when a page is added (workers waiting for pages wake). */
    private readonly onAdd: () => void,
  ) {}

  /** Found already, or landed on by a redirect. */
  isKnown(key: string): boolean {
    return this.byKey.has(key) || this.landed.has(key);
  }

  /** Adds a found page at `depth` when there is room; remembers it as left over when there is not. */
  take(candidate: { url: string; anchor: string }, depth: number): void {
    if (!this.hasRoom()) {
      this.overLimit.add(keyOf(candidate.url)!);
      return;
    }
    this.add(candidate.url, depth, candidate.anchor ? [candidate.anchor] : [], true);
  }

  /** A crawl whose limit is reached (a crawl's room never comes back; a map's may, as its pages fail). */
  isFull(): boolean {
    return this.mode === 'crawl' && !this.hasRoom();
  }

  /** Room for one more result (map: pages listed and not failed; crawl: pages taken on). */
  hasRoom(): boolean {
    let count = 0;
    for (const entry of this.all) {
      if (!entry.listed) continue;
      if (this.mode === 'map' && (entry.state === 'failed' || entry.state === 'duplicate')) continue;
      count++;
    }
    return count < this.capacity;
  }

  add(url: string, depth: number, anchors: readonly string[], listed: boolean): Entry<P> {
    const key = keyOf(url)!;
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const entry: Entry<P> = {
      url,
      key,
      depth,
      anchors: [...anchors],
      listed,
      state: 'pending',
      visit: null,
      linksRead: false,
      settled,
      settle,
    };
    this.all.push(entry);
    this.byKey.set(key, entry);
    this.onAdd();
    return entry;
  }
}
