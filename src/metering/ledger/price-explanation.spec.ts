import { explainPrice } from './price-explanation.js';

describe('explainPrice: a ledger entry’s price in words, from its own pricing record', () => {
  test('a search with the answer surcharge', () => {
    expect(
      explainPrice({
        credits: 2,
        counts: { results: 5 },
        pricing: {
          items: [
            { item: 'search:basic', credits: 1 },
            { item: 'answer:basic', credits: 1 },
          ],
          units: null,
        },
      }),
    ).toBe('basic search: 1 credit + answer surcharge (basic): 1 credit = 2 credits');
  });

  test('an answer asked for and not returned: the surcharge is there at 0 credits, and says why', () => {
    expect(
      explainPrice({
        credits: 2,
        counts: { results: 0, answers: 0 },
        pricing: {
          items: [
            { item: 'search:advanced', credits: 2 },
            { item: 'answer:advanced', credits: 0 },
          ],
          units: null,
        },
      }),
    ).toBe('advanced search: 2 credits + answer surcharge (advanced): 0 credits (no answer returned) = 2 credits');
  });

  test('volume units: the rule, and the blocks this call completed (0 or more)', () => {
    const units = { price_class: 'extract:basic', count: 2, units_per_block: 5, credits_per_block: 1 };
    expect(
      explainPrice({
        credits: 0,
        counts: { successful_urls: 2, failed_urls: 1 },
        pricing: { items: [{ item: 'extract:basic', credits: 0 }], units },
      }),
    ).toBe(
      'basic extraction: 2 successful URLs (1 credit per 5, counted over the month), no block of 5 completed by ' +
        'this call: 0 credits; 1 failed URL free',
    );
    expect(
      explainPrice({
        credits: 1,
        counts: { successful_urls: 2 },
        pricing: { items: [{ item: 'extract:basic', credits: 1 }], units },
      }),
    ).toBe(
      'basic extraction: 2 successful URLs (1 credit per 5, counted over the month), 1 block of 5 completed by ' +
        'this call: 1 credit',
    );
    expect(
      explainPrice({
        credits: 4,
        counts: { pages: 20 },
        pricing: {
          items: [{ item: 'map:instructions', credits: 4 }],
          units: { price_class: 'map:instructions', count: 20, units_per_block: 10, credits_per_block: 2 },
        },
      }),
    ).toBe(
      'map with instructions: 20 mapped pages (2 credits per 10, counted over the month), 2 blocks of 10 ' +
        'completed by this call: 4 credits',
    );
  });

  test('verticals, research parts, and entries without a price record', () => {
    expect(
      explainPrice({
        credits: 2,
        counts: {},
        pricing: { items: [{ item: 'vertical:products', credits: 2 }], units: null },
      }),
    ).toBe('products vertical search: 2 credits');
    expect(
      explainPrice({
        credits: 5,
        counts: {},
        pricing: {
          items: [
            { item: 'research:mini:searches', credits: 4 },
            { item: 'research:mini:sources', credits: 1 },
          ],
          units: null,
        },
      }),
    ).toBe('research (mini) searches: 4 credits + research (mini) sources: 1 credit = 5 credits');
    expect(explainPrice({ credits: 0.5, counts: {}, pricing: null })).toBe('0.5 credits (no price record kept)');
  });
});
