import { jest } from '@jest/globals';
import type { Logger } from '@nestjs/common';
import type { ExtractedPage } from '../extract/content-extractor.port.js';
import type { DocumentIndexWriter, IndexedDocument } from '../documents/document-index.writer.js';
import { IndexFeed } from './index-feed.js';

function page(n: number): ExtractedPage {
  return {
    url: `https://docs.test/page-${n}`,
    title: `Page ${n}`,
    rawContent: `Content of page ${n}.`,
    images: [],
    favicon: null,
    publishedDate: null,
    language: 'en',
    structuredData: [],
    links: [],
    contentType: 'text/html',
  };
}

/** A writer whose writes wait for `release()`, recording each batch. */
function slowWriter(fail = false) {
  const batches: string[][] = [];
  let releases: (() => void)[] = [];
  const writer = {
    upsert: async (documents: readonly IndexedDocument[]) => {
      batches.push(documents.map((doc) => doc.url));
      await new Promise<void>((resolve) => releases.push(resolve));
      if (fail) throw new Error('the database is gone');
      return documents.length;
    },
  } as unknown as DocumentIndexWriter;
  const release = () => {
    const waiting = releases;
    releases = [];
    for (const resolve of waiting) resolve();
  };
  return { writer, batches, release };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('IndexFeed', () => {
  const logger = { warn: jest.fn() } as unknown as Logger;

  test('writes while pages come, one write at a time, each taking every page gathered meanwhile', async () => {
    const { writer, batches, release } = slowWriter();
    const feed = new IndexFeed(writer, logger);
    for (let n = 0; n < 24; n++) feed.push(page(n));
    await tick();
    expect(batches).toHaveLength(0); // fewer than a batch: nothing written yet
    feed.push(page(24));
    await tick();
    expect(batches.map((batch) => batch.length)).toEqual([25]);
    for (let n = 25; n < 90; n++) feed.push(page(n));
    await tick();
    expect(batches).toHaveLength(1); // the first write is still going
    release();
    await tick();
    expect(batches.map((batch) => batch.length)).toEqual([25, 65]);
    feed.push(page(90));
    const drained = feed.drain();
    for (let i = 0; i < 5; i++) {
      release();
      await tick();
    }
    expect(await drained).toBe(91);
    expect(batches.map((batch) => batch.length)).toEqual([25, 65, 1]);
  });

  test('drain writes what is left; a failed write is logged and the rest still written', async () => {
    const { writer, batches, release } = slowWriter(true);
    const warn = jest.fn();
    const feed = new IndexFeed(writer, { warn } as unknown as Logger);
    for (let n = 0; n < 3; n++) feed.push(page(n));
    const drained = feed.drain();
    await tick();
    release();
    expect(await drained).toBe(0);
    expect(batches).toEqual([['https://docs.test/page-0', 'https://docs.test/page-1', 'https://docs.test/page-2']]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('indexing 3 crawled pages failed: the database is gone'));
  });
});
