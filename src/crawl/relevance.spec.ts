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

  test('a page with the terms only in its text (a site index) is dropped when another page is about them', () => {
    const ranker = new RelevanceRanker('sending email');
    const site = new Map([
      ['email', { path: '/topics/email', title: 'Sending email', content: 'Use send_mail() to send email.' }],
      ['genindex', { path: '/genindex', title: 'Index', content: 'send_mail() email EMAIL_HOST send email_user()' }],
    ]);
    expect(ranker.rank(site)).toEqual(['email']);
    // With no page about the subject, the pages that mention it are what there is.
    expect(ranker.rank(new Map([...site].filter(([id]) => id === 'genindex')))).toEqual(['genindex']);
  });

  test("pageScore: the terms of a page's title and headings, or half those of its text", () => {
    const ranker = new RelevanceRanker('database setup');
    expect(ranker.pageScore({ title: 'Part 2', summary: 'Database setup Creating models' })).toBe(2);
    expect(ranker.pageScore({ title: 'Part 2', content: 'Set the database engine' })).toBe(0.5);
    expect(ranker.pageScore({ title: 'Index', summary: 'A B C' })).toBe(0);
  });

  test('linkScore counts the heading a link sits under at half weight', () => {
    const ranker = new RelevanceRanker('refunds');
    expect(ranker.linkScore('https://e.com/b', 'Read more', 'Our refunds')).toBe(0.5);
    expect(ranker.linkScore('https://e.com/refunds', 'Read more', 'Our refunds')).toBe(1.5);
  });

  test('linkScore counts distinct matched terms from the URL and the anchor text', () => {
    const ranker = new RelevanceRanker('billing invoices');
    expect(ranker.linkScore('https://e.com/account/billing', 'Your invoices')).toBe(2);
    expect(ranker.linkScore('https://e.com/account/invoicing', 'Account')).toBeCloseTo(0.6);
    expect(ranker.linkScore('https://e.com/blog', 'Blog')).toBe(0);
  });
});
