import { creditsOf, maximumResearchCredits, researchPrice } from './research-pricing.js';

describe('research pricing', () => {
  test('searches at the model depth, sources per started block of 5', () => {
    expect(researchPrice('mini', { searches: 2, sources: 3 }).items).toEqual([
      { item: 'research:mini:searches', credits: 2 },
      { item: 'research:mini:sources', credits: 1 },
    ]);
    expect(creditsOf(researchPrice('pro', { searches: 4, sources: 6 }))).toBe(4 * 2 + 2 * 2);
    expect(creditsOf(researchPrice('mini', { searches: 1, sources: 0 }))).toBe(1);
  });

  test('capped by the model limits; the cap is what submission reserves', () => {
    expect(maximumResearchCredits('mini')).toBe(4);
    expect(maximumResearchCredits('pro')).toBe(18);
    expect(creditsOf(researchPrice('mini', { searches: 50, sources: 50 }))).toBe(4);
    expect(creditsOf(researchPrice('pro', { searches: 50, sources: 50 }))).toBe(18);
  });
});
