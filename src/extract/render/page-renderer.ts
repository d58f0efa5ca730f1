/** Renders a page in a browser: the HTML after its scripts ran. */
export interface PageRenderer {
  /**
   * `url` is the page's final address, `html` its static HTML as the fetcher got it (served to the browser as the
   * document, so it is not fetched twice).
   */
  render(url: string, html: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<RenderedPage>;
}

export interface RenderedPage {
  readonly url: string;
  readonly html: string;
}

/** The renderer, or null when no Chromium is configured (advanced extraction then uses the static HTML). */
export const PAGE_RENDERER = Symbol('PAGE_RENDERER');
