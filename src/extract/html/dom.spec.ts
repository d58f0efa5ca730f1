import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { projectRoot } from '../../database/project-root.js';
import { MAX_NESTING, collapsedLength, normalizeSpace, parseDocument } from './dom.js';
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

describe("linkedom, patched to make a node's listener map on demand: events still work", () => {
  test('a listener added to a parsed element is called, bubbles to its parent, and can be removed', () => {
    const { document, Event } = parseHTML('<html><body><div id="outer"><p id="inner">text</p></div></body></html>');
    const inner = document.querySelector('#inner')!;
    const outer = document.querySelector('#outer')!;
    const calls: string[] = [];
    const onInner = () => calls.push('inner');
    inner.addEventListener('ping', onInner);
    outer.addEventListener('ping', () => calls.push('outer'));
    inner.dispatchEvent(new Event('ping', { bubbles: true }));
    inner.removeEventListener('ping', onInner);
    inner.dispatchEvent(new Event('ping', { bubbles: true }));
    expect(calls).toEqual(['inner', 'outer', 'outer']);
  });

  test('the installed linkedom carries the patch (npm ci runs patch-package)', () => {
    for (const build of ['esm', 'cjs']) {
      const file = path.join(projectRoot(), 'node_modules/linkedom', build, 'interface/event-target.js');
      expect(readFileSync(file, 'utf8')).toContain('patches/linkedom+0.18.12.patch');
    }
  });

  test('removing a listener from a node that never had one, or dispatching on it, does nothing', () => {
    const { document, Event } = parseHTML('<html><body><p>text</p></body></html>');
    const paragraph = document.querySelector('p')!;
    expect(() => paragraph.removeEventListener('ping', () => {})).not.toThrow();
    expect(paragraph.dispatchEvent(new Event('ping'))).toBe(true);
  });
});

describe('collapsedLength', () => {
  test('is the length of normalizeSpace, for every kind of whitespace', () => {
    const pieces = [
      'a',
      'bc',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r\n',
      '\u00a0',
      '\u2003',
      '\u3000',
      '\ufeff',
      '\u200b',
      'é',
      '😀',
    ];
    let state = 7;
    for (let n = 0; n < 2000; n++) {
      let text = '';
      for (let i = n % 12; i >= 0; i--) {
        state = (state * 1103515245 + 12345) % 2147483648;
        text += pieces[state % pieces.length];
      }
      expect(collapsedLength(text)).toBe(normalizeSpace(text).length);
    }
    expect(collapsedLength(null)).toBe(0);
    expect(collapsedLength('')).toBe(0);
  });
});
