import { RelevanceRanker, queryTerms, stem } from './relevance.js';

describe('queryTerms', () => {
  test('drops stop words and request words, stems the rest', () => {
    expect(queryTerms('Find all the pages about pricing and billing plans')).toEqual(['pric', 'bill', 'plan']);
    expect(queryTerms('Show me everything')).toEqual([]);
  });

  test('stems plurals and verb endings lightly', () => {
    expect(['policies', 'classes', 'guides', 'status', 'installing', 'configured', 'api'].map(stem)).toEqual([
      'policy',
      'class',
      'guide',
      'status',
      'install',
      'configur',
      'api',
    ]);
  });
});

describe('RelevanceRanker', () => {
  const pages = new Map([
    ['https://e.com/', { path: '/', title: 'Home', anchors: [] }],
    ['https://e.com/blog/launch', { path: '/blog/launch', title: 'We launched', anchors: ['Launch post'] }],
    [
      'https://e.com/docs/authentication',
      { path: '/docs/authentication', title: 'Authentication', anchors: ['Auth guide'] },
    ],
    [
      'https://e.com/docs/api-keys',
      { path: '/docs/api-keys', anchors: ['API keys'], content: 'Authenticate requests' },
    ],
    ['https://e.com/docs/search', { path: '/docs/search', title: 'Search', anchors: ['Search endpoint'] }],
  ]);

  test('keeps the pages that match, best first', () => {
    const ranker = new RelevanceRanker('How do I authenticate with API keys?');
    expect(ranker.rank(pages)).toEqual(['https://e.com/docs/api-keys', 'https://e.com/docs/authentication']);
  });

  test('a term found on many pages weighs little against a rarer one', () => {
    const ranker = new RelevanceRanker('docs search');
    expect(ranker.rank(pages)).toEqual(['https://e.com/docs/search']);
  });

  test('nothing matches: nothing is kept', () => {
    expect(new RelevanceRanker('kubernetes operators').rank(pages)).toEqual([]);
  });

  test('instructions without terms are inactive', () => {
    expect(new RelevanceRanker('find all pages').active).toBe(false);
  });

  test('linkScore counts distinct matched terms from the URL and the anchor text', () => {
    const ranker = new RelevanceRanker('billing invoices');
    expect(ranker.linkScore('https://e.com/account/billing', 'Your invoices')).toBe(2);
    expect(ranker.linkScore('https://e.com/account/invoicing', 'Account')).toBeCloseTo(0.6);
    expect(ranker.linkScore('https://e.com/blog', 'Blog')).toBe(0);
  });
});
