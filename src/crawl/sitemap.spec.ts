import { gzipSync } from 'node:zlib';
import { parseSitemap } from './sitemap.js';

const SITEMAP = 'https://e.com/sitemap.xml';

describe('parseSitemap', () => {
  test('a urlset: its <loc>s, normalized, in order', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <url><loc> https://E.com/a?utm_source=x </loc><lastmod>2024-01-01</lastmod></url>
        <url><loc>https://e.com/b?x=1&amp;a=2</loc><image:image><image:loc>https://e.com/img.png</image:loc></image:image></url>
        <url><loc>/relative</loc></url>
        <url><loc>ftp://e.com/nope</loc></url>
      </urlset>`;
    expect(parseSitemap(Buffer.from(xml), SITEMAP)).toEqual({
      kind: 'urlset',
      locs: ['https://e.com/a', 'https://e.com/b?a=2&x=1', 'https://e.com/relative'],
    });
  });

  test('a sitemap index', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <sitemap><loc>https://e.com/sitemap-docs.xml</loc></sitemap>
        <sitemap><loc>https://e.com/sitemap-blog.xml.gz</loc></sitemap>
      </sitemapindex>`;
    expect(parseSitemap(xml, SITEMAP)).toEqual({
      kind: 'index',
      locs: ['https://e.com/sitemap-docs.xml', 'https://e.com/sitemap-blog.xml.gz'],
    });
  });

  test('a namespace-prefixed sitemap', () => {
    const xml = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://e.com/p</sm:loc></sm:url></sm:urlset>`;
    expect(parseSitemap(xml, SITEMAP).locs).toEqual(['https://e.com/p']);
  });

  test('a gzip-compressed body', () => {
    const xml = '<urlset><url><loc>https://e.com/zipped</loc></url></urlset>';
    expect(parseSitemap(gzipSync(xml), SITEMAP).locs).toEqual(['https://e.com/zipped']);
  });

  test('a plain-text sitemap, one URL per line', () => {
    expect(parseSitemap('https://e.com/one\n\nnot a url\r\nhttps://e.com/two\n', SITEMAP)).toEqual({
      kind: 'urlset',
      locs: ['https://e.com/one', 'https://e.com/two'],
    });
  });

  test('garbage gives nothing, not an error', () => {
    expect(parseSitemap(Buffer.from([0x1f, 0x8b, 0, 1, 2]), SITEMAP).locs).toEqual([]);
    expect(parseSitemap('<html><body>Not found</body></html>', SITEMAP).locs).toEqual([]);
  });
});
