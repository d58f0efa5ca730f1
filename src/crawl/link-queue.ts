/** A link found and chosen to follow, waiting in a best-first frontier. */
export interface QueuedLink {
  readonly url: string;
  readonly key: string;
  /** The fewest links from the start page it was found at. */
  depth: number;
  /** How promising it is (higher first). */
  priority: number;
  readonly anchors: string[];
  /** When it was first found: among equals, the earlier first (breadth-first order when nothing matches). */
  readonly order: number;
}

const MAX_ANCHORS = 10;

/**
 * The links of a best-first frontier not yet taken: the most promising first, then the shallowest, then the first
 * found. A link offered again (from another page) keeps its best priority and its shallowest depth, and gathers the
 * anchor texts. Taking scans the queue (it holds at most a few thousand links, and a run takes as many).
 */
export class LinkQueue {
  private readonly links = new Map<string, QueuedLink>();
  private offered = 0;

  get size(): number {
    return this.links.size;
  }

  has(key: string): boolean {
    return this.links.has(key);
  }

  offer(link: { url: string; key: string; depth: number; priority: number; anchor: string }): void {
    const queued = this.links.get(link.key);
    if (!queued) {
      const anchors = link.anchor ? [link.anchor] : [];
      this.links.set(link.key, { ...link, anchors, order: this.offered++ });
      return;
    }
    queued.priority = Math.max(queued.priority, link.priority);
    queued.depth = Math.min(queued.depth, link.depth);
    if (link.anchor && queued.anchors.length < MAX_ANCHORS && !queued.anchors.includes(link.anchor)) {
      queued.anchors.push(link.anchor);
    }
  }

  /** Removes and returns the best link, if any. */
  take(): QueuedLink | undefined {
    let best: QueuedLink | undefined;
    for (const link of this.links.values()) if (!best || isBefore(link, best)) best = link;
    if (best) this.links.delete(best.key);
    return best;
  }

  /** Removes and returns every link, best first. */
  takeAll(): QueuedLink[] {
    const all = [...this.links.values()].sort((a, b) => (isBefore(a, b) ? -1 : isBefore(b, a) ? 1 : 0));
    this.links.clear();
    return all;
  }
}

function isBefore(a: QueuedLink, b: QueuedLink): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.depth !== b.depth) return a.depth < b.depth;
  return a.order < b.order;
}
