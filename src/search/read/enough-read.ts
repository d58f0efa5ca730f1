/**
 * When a search has read enough: a share of the pages it fetches are read (the depth's: half at fast and basic, three
 * quarters at advanced), and one page read, fetched or from the page cache, answers the query on its own at least
 * `strength` well (EvidenceRanking.strength). Its signal then ends the reading, instead of the depth's deadline: the
 * pages still coming are rarely better than one that already answers, and the slowest of a dozen is nearly always
 * slow. `strength` 1 or more never ends it early. (The shares and the strength were chosen on bench:web by
 * cross-validation over its two halves of claims.)
 */
export class EnoughRead {
  private readonly controller = new AbortController();
  private readonly minFetched: number;
  private fetched = 0;
  private best = 0;

  constructor(
    readonly strength: number,
    /** Pages the search fetches (not those the page cache had). */
    toFetch: number,
    share: number,
  ) {
    this.minFetched = Math.ceil(toFetch * share);
  }

  get enabled(): boolean {
    return this.strength < 1;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A page read and analysed (`fetched` for this search, or from the page cache), with its strength. */
  observe(strength: number, fetched: boolean): void {
    if (fetched) this.fetched += 1;
    this.best = Math.max(this.best, strength);
    if (this.enabled && !this.signal.aborted && this.fetched >= this.minFetched && this.best >= this.strength) {
      this.controller.abort(new Error(`read enough: ${this.fetched} pages fetched, one page answering the query`));
    }
  }
}
