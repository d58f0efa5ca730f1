import { keyOf, normalizeUrl, pageKey, parseStartUrl, slashTwin } from './normalize-url.js';

describe('normalizeUrl', () => {
  test.each([
    ['HTTP://Example.COM/Docs', 'http://example.com/Docs'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['http://example.com:8080/a', 'http://example.com:8080/a'],
    ['https://example.com/a#section-2', 'https://example.com/a'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/a/./b/../c', 'https://example.com/a/c'],
    ['https://example.com//a///b', 'https://example.com/a/b'],
    ['https://user:pw@example.com/a', 'https://example.com/a'],
    ['https://example.com/index.html', 'https://example.com/index.html'],
    ['https://example.com/a/', 'https://example.com/a/'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  test('sorts query parameters by name, keeping repeated names in order and their encoding as written', () => {
    expect(normalizeUrl('https://e.com/s?b=2&a=1&b=1&q=a%20b+c&flag')).toBe(
      'https://e.com/s?a=1&b=2&b=1&flag&q=a%20b+c',
    );
  });

  test('strips tracking parameters, and the `?` when nothing is left', () => {
    expect(
      normalizeUrl('https://e.com/p?utm_source=x&UTM_Medium=y&gclid=1&fbclid=2&mc_cid=3&mc_eid=4&ref_src=twsrc&id=7'),
    ).toBe('https://e.com/p?id=7');
    expect(normalizeUrl('https://e.com/p?utm_campaign=spring&_ga=1')).toBe('https://e.com/p');
  });

  test('resolves relative links against a base', () => {
    const base = 'https://e.com/docs/guide/intro.html';
    expect(normalizeUrl('setup.html', base)).toBe('https://e.com/docs/guide/setup.html');
    expect(normalizeUrl('../api/', base)).toBe('https://e.com/docs/api/');
    expect(normalizeUrl('/top', base)).toBe('https://e.com/top');
    expect(normalizeUrl('//cdn.e.com/x', base)).toBe('https://cdn.e.com/x');
    expect(normalizeUrl('?page=2', base)).toBe('https://e.com/docs/guide/intro.html?page=2');
    expect(normalizeUrl('#top', base)).toBe('https://e.com/docs/guide/intro.html');
  });

  test.each(['mailto:a@e.com', 'javascript:void(0)', 'tel:+1', 'ftp://e.com/f', 'data:text/html,hi', '', '   '])(
    'refuses %j',
    (input) => {
      expect(normalizeUrl(input, 'https://e.com/')).toBeNull();
    },
  );

  test('refuses URLs over 2,048 characters', () => {
    expect(normalizeUrl(`https://e.com/${'a'.repeat(2100)}`)).toBeNull();
  });
});

describe('pageKey', () => {
  test('treats /a/ and /a as one page, keeps the root', () => {
    expect(pageKey('https://e.com/a/')).toBe(pageKey('https://e.com/a'));
    expect(pageKey('https://e.com/')).toBe('https://e.com/');
    expect(pageKey('https://e.com/a/?x=1')).toBe('https://e.com/a?x=1');
  });

  test('one key for the spellings of a page', () => {
    const spellings = [
      'https://E.com/docs/',
      'https://e.com/docs#intro',
      'https://e.com:443/docs?utm_source=newsletter',
      'https://e.com/docs/?fbclid=abc#x',
    ];
    expect(new Set(spellings.map((s) => keyOf(s)))).toEqual(new Set(['https://e.com/docs']));
  });
});

describe('parseStartUrl', () => {
  test.each([
    ['docs.example.com', 'https://docs.example.com/'],
    ['docs.example.com/guide', 'https://docs.example.com/guide'],
    ['example.com:8443/x', 'https://example.com:8443/x'],
    ['http://127.0.0.1:4000/docs/', 'http://127.0.0.1:4000/docs/'],
    ['  https://Example.com  ', 'https://example.com/'],
  ])('%s → %s', (input, expected) => {
    expect(parseStartUrl(input)).toBe(expected);
  });

  test.each([
    '',
    'ftp://example.com',
    'mailto:a@b.c',
    'javascript:alert(1)',
    'https://',
    'http://exa mple.com',
    'https://-/',
  ])('refuses %j', (input) => {
    expect(parseStartUrl(input)).toBeNull();
  });
});

describe('slashTwin', () => {
  test('the other spelling of a page under pageKey; none for the root', () => {
    expect(slashTwin('https://e.test/docs/')).toBe('https://e.test/docs');
    expect(slashTwin('https://e.test/docs?a=1')).toBe('https://e.test/docs/?a=1');
    expect(slashTwin('https://e.test/')).toBeNull();
    expect(pageKey(slashTwin('https://e.test/a/b/')!)).toBe(pageKey('https://e.test/a/b/'));
  });
});
