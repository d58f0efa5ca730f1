/**
 * The task a thread of the extraction pool (extraction-pool.ts) runs: one HTML page, already fetched and decoded,
 * through extractHtml. Loaded by piscina in a worker thread; it keeps no state between tasks.
 */
import { type HtmlExtraction, type HtmlOptions, extractHtml } from './html/html-page.js';

export interface HtmlTask {
  readonly html: string;
  readonly url: string;
  readonly options: HtmlOptions;
}

/**
 * An error crosses the thread boundary as its name and message (a class such as ExtractError would not). `ms`: the
 * task's time on its thread.
 */
export type HtmlTaskResult =
  | { readonly ok: true; readonly page: HtmlExtraction; readonly ms: number }
  | { readonly ok: false; readonly name: string; readonly message: string; readonly ms: number };

export default function extractHtmlTask(task: HtmlTask): HtmlTaskResult {
  const started = performance.now();
  try {
    const page = extractHtml(task.html, task.url, task.options);
    return { ok: true, page, ms: performance.now() - started };
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { ok: false, name, message, ms: performance.now() - started };
  }
}
