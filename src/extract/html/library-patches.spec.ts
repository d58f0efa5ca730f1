import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import path from 'node:path';
import { Readability } from '@mozilla/readability';
import { DOMParser, parseHTML } from 'linkedom';
import { projectRoot } from '../../database/project-root.js';

/**
 * The install patches that cut extraction's CPU (patches/, applied by patch-package) change how linkedom and
 * Readability compute, never what they answer: these are the answers they must keep.
 */
describe('linkedom, patched (class names, tag names)', () => {
  test('className: empty without a class attribute; the tokens, deduplicated, with one; the new value once set', () => {
    const { document } = parseHTML('<html><body><p>a</p><p class=" lead  note lead ">b</p></body></html>');
    const [plain, classed] = Array.from(document.querySelectorAll('p'));
    expect(plain!.className).toBe('');
    // linkedom answers getAttribute('class') with className, '' rather than null, patched or not.
    expect(plain!.getAttribute('class')).toBe('');
    expect(classed!.className).toBe('lead note');
    classed!.setAttribute('class', 'other');
    expect(classed!.className).toBe('other');
    plain!.classList.add('added');
    expect(plain!.className).toBe('added');
    plain!.className = 'set  by name';
    expect(plain!.getAttribute('class')).toBe('set by name');
  });

  test('tag names are upper case in HTML, as parsed or created; getElementsByTagName takes either case', () => {
    const { document } = parseHTML('<html><body><section><p>a</p><P>b</P></section></body></html>');
    const created = document.createElement('aside');
    document.body.appendChild(created);
    expect(document.querySelector('section')!.tagName).toBe('SECTION');
    expect(created.tagName).toBe('ASIDE');
    expect(created.nodeName).toBe('ASIDE');
    expect(document.getElementsByTagName('p')).toHaveLength(2);
    expect(document.getElementsByTagName('P')).toHaveLength(2);
    expect(document.getElementsByTagName('Aside')).toHaveLength(0);
    expect(document.getElementsByTagName('ASIDE')).toHaveLength(1);
  });

  test('in XML, names keep their case and getElementsByTagName matches them exactly', () => {
    const xml = new DOMParser().parseFromString('<feed><Entry/><entry/></feed>', 'text/xml');
    expect(xml.getElementsByTagName('Entry')).toHaveLength(1);
    expect(xml.getElementsByTagName('entry')).toHaveLength(1);
    expect(xml.getElementsByTagName('ENTRY')).toHaveLength(0);
    expect(xml.getElementsByTagName('Entry')[0]!.tagName).toBe('Entry');
  });
});

describe('Readability, patched (bylines, visibility, the debug log)', () => {
  const paragraph = (words: string) => `<p>${`${words} `.repeat(30)}</p>`;
  const parse = (body: string) => {
    const { document } = parseHTML(`<html><head><title>Story</title></head><body>${body}</body></html>`);
    return new Readability(document as never).parse();
  };

  test('a short node naming its author is the byline; a long one is not', () => {
    const article = `<article>${paragraph('The river rose through the night.')}${paragraph('By morning it had crested.')}</article>`;
    expect(parse(`<div class="byline">Ada Lovelace</div>${article}`)?.byline).toBe('Ada Lovelace');
    expect(parse(`<a rel="author" href="/ada">Ada Lovelace</a>${article}`)?.byline).toBe('Ada Lovelace');
    const long = `Ada Lovelace ${'and colleagues '.repeat(10)}`;
    expect(parse(`<div class="byline">${long}</div>${article}`)?.byline).toBeNull();
  });

  test('paragraphs hidden by their style attribute are dropped; others, styled or not, are kept', () => {
    const article = parse(
      `<article>${paragraph('Kept without style.')}<p style="color: red">${'Kept with style. '.repeat(20)}</p>` +
        `<p style="display: none">${'Hidden by display. '.repeat(20)}</p>` +
        `<p style="visibility: hidden">${'Hidden by visibility. '.repeat(20)}</p></article>`,
    );
    expect(article?.textContent).toContain('Kept without style.');
    expect(article?.textContent).toContain('Kept with style.');
    expect(article?.textContent).not.toContain('Hidden by');
  });

  test('with debug on, the article is still logged (the patch only skips serializing it otherwise)', () => {
    const { document } = parseHTML(`<html><body><article>${paragraph('Logged words.')}</article></body></html>`);
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    try {
      new Readability(document as never, { debug: true }).parse();
    } finally {
      log.mockRestore();
    }
    expect(lines.some((line) => line.includes('Grabbed:') && line.includes('Logged words.'))).toBe(true);
  });

  test('the installed packages carry the patches (npm ci runs patch-package)', () => {
    const installed = (file: string) => readFileSync(path.join(projectRoot(), 'node_modules', file), 'utf8');
    expect(installed('@mozilla/readability/Readability.js')).toContain('patches/@mozilla+readability+0.6.0.patch');
    for (const build of ['esm', 'cjs']) {
      expect(installed(`linkedom/${build}/shared/utils.js`)).toContain('patches/linkedom+0.18.12.patch');
    }
  });
});
