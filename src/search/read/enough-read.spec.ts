import { EnoughRead } from './enough-read.js';

describe('EnoughRead', () => {
  test('ends the reading once half the pages to fetch are read and a page answers the query', () => {
    const enough = new EnoughRead(0.45, 6, 1 / 2);
    enough.observe(0.9, true);
    enough.observe(0.1, true);
    expect(enough.signal.aborted).toBe(false);
    enough.observe(0.2, true);
    expect(enough.signal.aborted).toBe(true);
    expect((enough.signal.reason as Error).message).toBe('read enough: 3 pages fetched, one page answering the query');
  });

  test('a page from the page cache answers, but only fetched pages count towards the share', () => {
    const enough = new EnoughRead(0.45, 4, 1 / 2);
    enough.observe(0.8, false);
    enough.observe(0.3, true);
    expect(enough.signal.aborted).toBe(false);
    enough.observe(0.3, true);
    expect(enough.signal.aborted).toBe(true);
  });

  test('with nothing to fetch, a cached page that answers ends it at once', () => {
    const enough = new EnoughRead(0.45, 0, 1 / 2);
    enough.observe(0.5, false);
    expect(enough.signal.aborted).toBe(true);
  });

  test("the depth's share: three quarters of 8 pages to fetch is 6", () => {
    const enough = new EnoughRead(0.45, 8, 3 / 4);
    for (let i = 0; i < 5; i++) enough.observe(0.9, true);
    expect(enough.signal.aborted).toBe(false);
    enough.observe(0.1, true);
    expect(enough.signal.aborted).toBe(true);
  });

  test('pages that do not answer the query never end it, however many', () => {
    const enough = new EnoughRead(0.45, 4, 1 / 2);
    for (let i = 0; i < 20; i++) enough.observe(0.44, true);
    expect(enough.signal.aborted).toBe(false);
  });

  test('a strength of 1 never ends it early', () => {
    const enough = new EnoughRead(1, 1, 1 / 2);
    expect(enough.enabled).toBe(false);
    enough.observe(1, true);
    expect(enough.signal.aborted).toBe(false);
  });
});
