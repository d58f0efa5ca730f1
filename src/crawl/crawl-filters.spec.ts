import { CrawlFilters } from './crawl-filters.js';

const admits = (filters: CrawlFilters, url: string) => filters.admits(new URL(url));

describe('CrawlFilters', () => {
  const start = 'https://docs.example.com/';

  test('without options every http(s) URL passes, external ones included', () => {
    const filters = new CrawlFilters(start);
    expect(admits(filters, 'https://docs.example.com/a')).toBe(true);
    expect(admits(filters, 'https://other.org/b')).toBe(true);
  });

  test('select_paths: a page passes when any pattern is found in its path', () => {
    const filters = new CrawlFilters(start, { selectPaths: ['/guides/.*', '^/api/'] });
    expect(admits(filters, 'https://docs.example.com/guides/setup')).toBe(true);
    expect(admits(filters, 'https://docs.example.com/en/guides/setup')).toBe(true);
    expect(admits(filters, 'https://docs.example.com/api/search')).toBe(true);
    expect(admits(filters, 'https://docs.example.com/v2/api/search')).toBe(false);
    expect(admits(filters, 'https://docs.example.com/blog/post?x=/guides/')).toBe(false);
  });

  test('exclude_paths wins over select_paths', () => {
    const filters = new CrawlFilters(start, { selectPaths: ['/guides/'], excludePaths: ['/guides/old/'] });
    expect(admits(filters, 'https://docs.example.com/guides/new/a')).toBe(true);
    expect(admits(filters, 'https://docs.example.com/guides/old/a')).toBe(false);
  });

  test('paths are matched decoded, case-sensitively', () => {
    const filters = new CrawlFilters(start, { selectPaths: ['/café/'] });
    expect(admits(filters, 'https://docs.example.com/caf%C3%A9/menu')).toBe(true);
    expect(admits(filters, 'https://docs.example.com/CAFÉ/menu')).toBe(false);
  });

  test('select_domains and exclude_domains run on the host name, case-insensitively, without the port', () => {
    const filters = new CrawlFilters(start, {
      selectDomains: ['^docs\\.example\\.com$', 'Blog\\.Example\\.com$'],
      excludeDomains: ['^old\\.'],
    });
    expect(admits(filters, 'https://docs.example.com:8443/a')).toBe(true);
    expect(admits(filters, 'https://blog.example.com/a')).toBe(true);
    expect(admits(filters, 'https://old.blog.example.com/a')).toBe(false);
    expect(admits(filters, 'https://example.com/a')).toBe(false);
  });

  test('allow_external: false keeps the start site, its www twin and its subdomains', () => {
    const filters = new CrawlFilters('https://www.example.com/', { allowExternal: false });
    expect(admits(filters, 'https://example.com/a')).toBe(true);
    expect(admits(filters, 'https://www.example.com/a')).toBe(true);
    expect(admits(filters, 'https://api.example.com/a')).toBe(true);
    expect(admits(filters, 'https://example.org/a')).toBe(false);
    expect(admits(filters, 'https://notexample.com/a')).toBe(false);
  });

  test('different ports of one host are the same site; localhost and 127.0.0.1 are not', () => {
    const filters = new CrawlFilters('http://127.0.0.1:4000/', { allowExternal: false });
    expect(admits(filters, 'http://127.0.0.1:5000/a')).toBe(true);
    expect(admits(filters, 'http://localhost:4000/a')).toBe(false);
  });

  test('Python-style patterns work: inline flags and named groups', () => {
    const filters = new CrawlFilters(start, { selectPaths: ['(?i)/API/', '/(?P<lang>en|de)/'] });
    expect(admits(filters, 'https://docs.example.com/api/x')).toBe(true);
    expect(admits(filters, 'https://docs.example.com/de/x')).toBe(true);
    expect(admits(filters, 'https://docs.example.com/fr/x')).toBe(false);
  });

  test('a pattern that would backtrack catastrophically in a backtracking engine runs in linear time', () => {
    const filters = new CrawlFilters(start, { selectPaths: ['^/(a+)+$', '(.*a){12}x$', '^/(a|aa)+$'] });
    const started = Date.now();
    expect(admits(filters, `https://docs.example.com/${'a'.repeat(1500)}b`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
