import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ExtractionPool } from './extraction-pool.js';
import { extractHtml } from './html/html-page.js';

const PAGE_URL = 'https://news.example/articles/harbour-news.html';
const HTML = readFileSync('test/fixtures/site/articles/harbour-news.html', 'utf8');
const OPTIONS = { depth: 'basic', format: 'markdown' } as const;
/** The compiled worker module: `npm run build` makes it (CI builds before it tests). */
const WORKER = path.resolve('dist/src/extract/extraction-worker.js');

/** A page big enough to keep a thread busy for a while. */
function bigPage(): string {
  const paragraph = '<p>The harbour master reported that the ferries ran late again this week. </p>';
  return `<!doctype html><title>Big</title><main><h1>Big</h1>${paragraph.repeat(10_000)}</main>`;
}

describe('ExtractionPool', () => {
  test('without threads (or without the compiled worker) it extracts inline, as extractHtml does', async () => {
    for (const pool of [new ExtractionPool({ threads: 0 }), new ExtractionPool({ workerFile: '/nowhere.js' })]) {
      expect(pool.threads).toBe(0);
      expect(await pool.extract(HTML, PAGE_URL, OPTIONS)).toEqual(extractHtml(HTML, PAGE_URL, OPTIONS));
      await pool.close();
    }
  });

  test('an aborted signal rejects before any work', async () => {
    const pool = new ExtractionPool({ threads: 0 });
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(pool.extract(HTML, PAGE_URL, OPTIONS, controller.signal)).rejects.toThrow('too late');
  });

  (existsSync(WORKER) ? describe : describe.skip)('on worker threads (dist build)', () => {
    let pool: ExtractionPool;
    beforeAll(() => {
      pool = new ExtractionPool({ threads: 1, queuedPerThread: 1, workerFile: WORKER });
    });
    afterAll(async () => {
      await pool.close();
    });

    test('a page extracted on a thread is what extractHtml gives', async () => {
      expect(pool.threads).toBe(1);
      const inline = extractHtml(HTML, PAGE_URL, OPTIONS);
      const threaded = await pool.extract(HTML, PAGE_URL, OPTIONS);
      expect(threaded.title).toBe(inline.title);
      expect(threaded.content).toBe(inline.content);
      expect(threaded.links).toEqual(inline.links);
    });

    test('the queue is bounded: past threads × (1 + queuedPerThread) pages, callers wait their turn', async () => {
      const runs = Array.from({ length: 5 }, () => pool.extract(HTML, PAGE_URL, OPTIONS));
      expect(pool.load).toEqual({ active: 2, waiting: 3 });
      const pages = await Promise.all(runs);
      expect(pages.every((page) => page.title === pages[0]!.title)).toBe(true);
      expect(pool.load).toEqual({ active: 0, waiting: 0 });
    });

    test('a caller that has to wait hears when it waits and when its turn comes; one served at once hears nothing', async () => {
      const heard: string[] = [];
      const listener = (name: string) => ({
        waiting: () => heard.push(`${name} waits`),
        turn: () => heard.push(`${name} turn`),
      });
      const runs = ['a', 'b', 'c'].map((name) => pool.extract(HTML, PAGE_URL, OPTIONS, undefined, listener(name)));
      expect(heard).toEqual(['c waits']);
      await Promise.all(runs);
      expect(heard).toEqual(['c waits', 'c turn']);
    });

    test('a task aborted while it waits is dropped; one aborted while it runs ends, and the pool goes on', async () => {
      const big = bigPage();
      const controller = new AbortController();
      const running = pool.extract(big, PAGE_URL, OPTIONS, controller.signal);
      const queued = pool.extract(big, PAGE_URL, OPTIONS);
      const waiting = pool.extract(HTML, PAGE_URL, OPTIONS, controller.signal);
      expect(pool.load.waiting).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort(new Error('the crawl is over'));
      await expect(running).rejects.toThrow('the crawl is over');
      await expect(waiting).rejects.toThrow('the crawl is over');
      expect((await queued).title).toBe('Big');
      expect((await pool.extract(HTML, PAGE_URL, OPTIONS)).title).toBe(extractHtml(HTML, PAGE_URL, OPTIONS).title);
    }, 60_000);
  });
});
