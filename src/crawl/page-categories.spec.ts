import { categoriesFirst, categoryMatcher } from './page-categories.js';

const URLS = [
  'https://acme.test/',
  'https://acme.test/intro.html',
  'https://acme.test/blog/launch.html',
  'https://acme.test/docs/setup',
  'https://acme.test/widgets/docs-and-more.html',
  'https://acme.test/Guides/',
];

describe('page categories', () => {
  test('a path segment (whole, any case, or with an extension) tells the kind', () => {
    const docs = categoryMatcher(['Documentation'])!;
    expect(URLS.filter(docs)).toEqual(['https://acme.test/docs/setup', 'https://acme.test/Guides/']);
    expect(categoryMatcher([])).toBeNull();
  });

  test('categories rank: their pages first, the rest after, each in its order; none dropped', () => {
    expect(categoriesFirst(URLS, (url) => url, ['Documentation', 'Blog'])).toEqual([
      'https://acme.test/blog/launch.html',
      'https://acme.test/docs/setup',
      'https://acme.test/Guides/',
      'https://acme.test/',
      'https://acme.test/intro.html',
      'https://acme.test/widgets/docs-and-more.html',
    ]);
  });

  test('a site whose paths name none of the categories keeps every page in its order', () => {
    const plain = URLS.slice(0, 2);
    expect(categoriesFirst(plain, (url) => url, ['Documentation', 'Careers'])).toEqual(plain);
    expect(categoriesFirst(plain, (url) => url, [])).toEqual(plain);
  });
});
