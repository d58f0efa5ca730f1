import type { SearchHit } from './providers/search-provider.port.js';
import { countryBoosted, mergeResultLists } from './result-lists.js';

const hit = (url: string, provider: string, fields: Partial<SearchHit> = {}): SearchHit => ({
  url,
  title: url,
  content: `${provider} snippet`,
  score: 0.5,
  rawContent: null,
  publishedDate: null,
  favicon: null,
  images: [],
  provider,
  ...fields,
});

describe('mergeResultLists', () => {
  test('one page once, by its normalized URL, at the best rank it has in any list', () => {
    const merged = mergeResultLists(
      [
        { provider: 'engine-a', hits: [hit('https://a.test/x', 'engine-a'), hit('https://b.test/', 'engine-a')] },
        { provider: 'engine-b', hits: [hit('https://b.test', 'engine-b', { score: 0.9 })] },
      ],
      { enginesFirst: true },
    );
    expect(merged.map((m) => [m.hit.url, m.rank])).toEqual([
      ['https://a.test/x', 0],
      ['https://b.test', 0],
    ]);
    // Two engines' hits of one page become one: the better-scored, with what it lacks from the other.
    expect(merged[1]!.hit.score).toBe(0.9);
  });

  test("engines first: an engine's hit of a page the index holds stands; otherwise the two become one", () => {
    const lists = [
      { provider: 'local', hits: [hit('https://a.test/x', 'local', { score: 0.95, rawContent: '# X' })] },
      { provider: 'engine', hits: [hit('https://a.test/x', 'engine', { score: 0.4 })] },
    ];
    const enginesFirst = mergeResultLists(lists, { enginesFirst: true });
    expect(enginesFirst).toHaveLength(1);
    expect(enginesFirst[0]!.hit).toMatchObject({ provider: 'engine', rawContent: null });
    const combined = mergeResultLists(lists, { enginesFirst: false });
    expect(combined[0]!.hit).toMatchObject({ provider: 'local', score: 0.95, rawContent: '# X' });
  });
});

describe('countryBoosted', () => {
  test("a result from the country's own domain scores higher, at most 1; others, and no country, as they were", () => {
    expect(countryBoosted(0.5, 'https://example.de/a', 'germany')).toBeGreaterThan(0.5);
    expect(countryBoosted(0.99, 'https://example.de/a', 'germany')).toBeLessThanOrEqual(1);
    expect(countryBoosted(0.5, 'https://example.fr/a', 'germany')).toBe(0.5);
    expect(countryBoosted(0.5, 'https://example.de/a', null)).toBe(0.5);
  });
});
