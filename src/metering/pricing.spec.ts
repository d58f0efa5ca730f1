import { creditsForUnits, extractionUnits, mapUnits, maximumCredits, searchPrice, verticalPrice } from './pricing.js';

describe('pricing', () => {
  test('search: basic 1, advanced 2; fast and ultra-fast are basic; the answer surcharge is +1 basic, +2 advanced', () => {
    const total = (body: Record<string, unknown>) => maximumCredits(searchPrice(body));
    expect(total({})).toBe(1);
    expect(total({ search_depth: 'basic' })).toBe(1);
    expect(total({ search_depth: 'fast' })).toBe(1);
    expect(total({ search_depth: 'ultra-fast' })).toBe(1);
    expect(total({ search_depth: 'advanced' })).toBe(2);
    expect(total({ include_answer: true })).toBe(2);
    expect(total({ include_answer: 'basic' })).toBe(2);
    expect(total({ include_answer: 'advanced' })).toBe(3);
    expect(total({ search_depth: 'advanced', include_answer: 'advanced' })).toBe(4);
    expect(total({ include_answer: false })).toBe(1);
    expect(searchPrice({ search_depth: 'advanced', include_answer: true }).items).toEqual([
      { item: 'search:advanced', credits: 2 },
      { item: 'answer:basic', credits: 1 },
    ]);
  });

  test('the answer surcharge is charged only when an answer came back; before the work, the most is reserved', () => {
    const total = (body: Record<string, unknown>, answered: boolean) => maximumCredits(searchPrice(body, answered));
    expect(total({ include_answer: true }, false)).toBe(1);
    expect(total({ search_depth: 'advanced', include_answer: 'advanced' }, false)).toBe(2);
    expect(total({ search_depth: 'advanced', include_answer: 'advanced' }, true)).toBe(4);
    expect(searchPrice({ include_answer: 'advanced' }, false).items).toEqual([
      { item: 'search:basic', credits: 1 },
      { item: 'answer:advanced', credits: 0 },
    ]);
    expect(total({ include_answer: true }, false)).toBeLessThanOrEqual(
      maximumCredits(searchPrice({ include_answer: true })),
    );
  });

  test('verticals follow their table', () => {
    expect(maximumCredits(verticalPrice('products'))).toBe(2);
    expect(maximumCredits(verticalPrice('images'))).toBe(2);
    expect(maximumCredits(verticalPrice('news'))).toBe(1);
  });

  test('units: a call pays for the blocks its units complete in the running count', () => {
    const basic = (n: number) => extractionUnits('basic', n);
    expect(creditsForUnits(basic(3), 3)).toBe(0);
    expect(creditsForUnits(basic(3), 6)).toBe(1);
    expect(creditsForUnits(basic(4), 10)).toBe(1);
    expect(creditsForUnits(basic(5), 15)).toBe(1);
    expect(creditsForUnits(basic(12), 12)).toBe(2);
    expect(creditsForUnits(extractionUnits('advanced', 5), 5)).toBe(2);
    expect(creditsForUnits(mapUnits(false, 25), 25)).toBe(2);
    expect(creditsForUnits(mapUnits(true, 10), 10)).toBe(2);
    expect(creditsForUnits(basic(0), 7)).toBe(0);
  });

  test('over any sequence of calls, the credits add up to the blocks of the total: nothing lost to rounding', () => {
    let total = 0;
    let credits = 0;
    for (const n of [1, 4, 3, 7, 2, 9, 0, 5, 11, 1]) {
      total += n;
      credits += creditsForUnits(extractionUnits('advanced', n), total);
    }
    expect(credits).toBe(Math.floor(total / 5) * 2);
  });

  test('the maximum bounds every possible charge', () => {
    for (let n = 0; n <= 20; n++) {
      const units = extractionUnits('basic', n);
      for (let before = 0; before < 5; before++) {
        expect(creditsForUnits(units, before + n)).toBeLessThanOrEqual(maximumCredits({ items: [], units }));
      }
    }
  });
});
