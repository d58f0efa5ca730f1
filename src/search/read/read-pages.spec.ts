import { LateReadTimeout, LateReads } from './late-reads.js';
import type { PageReader, ReadPage } from './page-reader.port.js';
import { readPages } from './read-pages.js';

const page = (url: string): ReadPage => ({
  url,
  title: null,
  markdown: `# ${url}`,
  publishedDate: null,
  favicon: null,
  images: [],
});

/** A reader whose pages answer after `delays[url]` ms (never: no entry), and that notes how each read ended. */
function slowReader(delays: Record<string, number>) {
  const ended = new Map<string, 'read' | 'aborted'>();
  const started: string[] = [];
  const reader: PageReader = {
    read: (url, signal) =>
      new Promise<ReadPage>((resolve, reject) => {
        started.push(url);
        const delay = delays[url];
        const timer =
          delay === undefined
            ? undefined
            : setTimeout(() => {
                ended.set(url, 'read');
                resolve(page(url));
              }, delay);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          ended.set(url, 'aborted');
          reject(signal.reason as Error);
        });
      }),
  };
  return { reader, ended, started };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('readPages', () => {
  test('pages in time are returned; a read going at the deadline goes on in the background when there is room', async () => {
    const { reader, ended } = slowReader({ 'http://a.test/fast': 5, 'http://b.test/slow': 150 });
    const late = new LateReads(4, 1000);
    const outcome = await readPages(
      ['http://a.test/fast', 'http://b.test/slow'],
      reader,
      60,
      undefined,
      undefined,
      late,
    );
    expect([...outcome.pages.keys()]).toEqual(['http://a.test/fast']);
    expect([...outcome.late]).toEqual(['http://b.test/slow']);
    expect(late.inFlight).toBe(1);
    expect(late.has('http://b.test/slow')).toBe(true);
    await sleep(150);
    // Finished behind the answer (where the page cache gets it), and not counted for the search.
    expect(ended.get('http://b.test/slow')).toBe('read');
    expect(outcome.pages.has('http://b.test/slow')).toBe(false);
    expect(late.inFlight).toBe(0);
    expect(late.has('http://b.test/slow')).toBe(false);
  });

  test('any of its callers ends the reading before the deadline: what was read is kept, the rest is late', async () => {
    const { reader } = slowReader({ 'http://a.test/fast': 5, 'http://b.test/slow': 400 });
    const client = new AbortController();
    const enough = new AbortController();
    setTimeout(() => enough.abort(new Error('read enough')), 60);
    const started = performance.now();
    const outcome = await readPages(['http://a.test/fast', 'http://b.test/slow'], reader, 2000, [
      client.signal,
      enough.signal,
    ]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect([...outcome.pages.keys()]).toEqual(['http://a.test/fast']);
    expect([...outcome.late]).toEqual(['http://b.test/slow']);
    expect(client.signal.aborted).toBe(false);
  });

  test('past the late reads allowed, or without them, a read going at the deadline is stopped there', async () => {
    const { reader, ended } = slowReader({ 'http://a.test/1': 500, 'http://b.test/2': 500 });
    const late = new LateReads(1, 1000);
    const started = performance.now();
    const outcome = await readPages(['http://a.test/1', 'http://b.test/2'], reader, 40, undefined, undefined, late);
    expect(performance.now() - started).toBeLessThan(300);
    expect(outcome.late.size).toBe(2);
    expect([...ended.values()]).toEqual(['aborted']);
    expect(late.inFlight).toBe(1);
    const alone = slowReader({ 'http://c.test/3': 500 });
    await readPages(['http://c.test/3'], alone.reader, 20);
    expect(alone.ended.get('http://c.test/3')).toBe('aborted');
  });

  test('a late read is stopped limitMs after the deadline, with a LateReadTimeout', async () => {
    const reasons: unknown[] = [];
    const reader: PageReader = {
      read: (_url, signal) =>
        new Promise<ReadPage>((_, reject) =>
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            reject(signal.reason as Error);
          }),
        ),
    };
    const late = new LateReads(4, 50);
    await readPages(['http://a.test/hang'], reader, 20, undefined, undefined, late);
    expect(late.has('http://a.test/hang')).toBe(true);
    await sleep(120);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(LateReadTimeout);
    expect(late.has('http://a.test/hang')).toBe(false);
  });

  test('a read still waiting for its turn at the deadline never starts', async () => {
    const urls = [1, 2, 3, 4, 5].map((i) => `http://a.test/${i}`);
    const { reader, started } = slowReader(Object.fromEntries(urls.map((url) => [url, 200])));
    const outcome = await readPages(urls, reader, 30, undefined, undefined, new LateReads(10, 1000));
    expect(outcome.late.size).toBe(5);
    await sleep(250);
    // READS_PER_HOST (4) started; the fifth was waiting for one of them to end.
    expect(started).toEqual(urls.slice(0, 4));
  });
});
