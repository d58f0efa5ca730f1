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

/** An error crosses the thread boundary as its name and message (a class such as ExtractError would not). */
export type HtmlTaskResult =
  | { readonly ok: true; readonly page: HtmlExtraction }
  | { readonly ok: false; readonly name: string; readonly message: string };

export default function extractHtmlTask(task: HtmlTask): HtmlTaskResult {
  try {
    return { ok: true, page: extractHtml(task.html, task.url, task.options) };
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { ok: false, name, message };
  }
}
