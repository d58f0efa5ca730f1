import { MAX_NESTING, parseDocument } from './dom.js';
import { extractHtml } from './html-page.js';

describe('parseDocument: nesting deeper than browsers build', () => {
  const deep = (levels: number) =>
    `<html><body><article><p>Intro paragraph of the page.</p>${'<b>x '.repeat(levels)}deepest words</article></body></html>`;

  test('elements stop at MAX_NESTING levels; the text below them stays', () => {
    const document = parseDocument(deep(20_000));
    let depth = 0;
    const stack: [typeof document.documentElement, number][] = [[document.documentElement, 1]];
    for (let entry = stack.pop(); entry; entry = stack.pop()) {
      depth = Math.max(depth, entry[1]);
      for (const child of Array.from(entry[0].children)) stack.push([child, entry[1] + 1]);
    }
    expect(depth).toBe(MAX_NESTING);
    expect(document.body?.textContent).toContain('deepest words');
    expect(document.body?.textContent?.match(/x /g)).toHaveLength(20_000);
  });

  test('a page of 20,000 unclosed tags is extracted (no stack overflow), its text kept', () => {
    const extraction = extractHtml(deep(20_000), 'https://example.com/a', { depth: 'basic', format: 'text' });
    expect(extraction.content).toContain('deepest words');
  });

  test('ordinary nesting is left as it is', () => {
    const document = parseDocument(deep(100));
    expect(document.querySelectorAll('b')).toHaveLength(100);
  });
});
