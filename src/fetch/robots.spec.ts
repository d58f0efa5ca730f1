import { productToken } from './robots.js';

describe('robots.txt', () => {
  it('matches robots.txt groups by the product token', () => {
    expect(productToken('SearchLedgerBot/0.1 (+https://x)')).toBe('SearchLedgerBot');
    expect(productToken('Plain')).toBe('Plain');
  });
});
