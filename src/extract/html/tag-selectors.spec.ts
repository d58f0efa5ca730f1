import { readFileSync } from 'node:fs';
import { type DomDocument, type DomElement, parseDocument } from './dom.js';
import { simpleSelectorsOf } from './tag-selectors.js';

/** The same selector, written so that the simple path does not take it: linkedom's css-select answers. */
const throughCssSelect = (selectors: string) =>
  selectors
    .split(',')
    .map((part) => `${part.trim()}:not(x-never)`)
    .join(', ');

const MARKUP = `<!doctype html><html lang="en"><head><title>T</title><base href="/docs/">
<meta name="description" content="d"><meta property="og:image" content="/a.png"><meta charset="utf-8">
<link rel="icon" href="/favicon.ico"><link rel="stylesheet"><script type="application/ld+json">{}</script></head>
<body><div id="a"><h1>One</h1><p>x <a href="/1">1</a> <a name="n">no href</a></p>
<template><p>inside a template</p><h2>hidden</h2></template>
<section><h2>Two</h2><div><p>deep <img src="/i.png"></p><ul><li>l</li></ul><map><area href="/m"></map></div></section>
<div itemscope itemtype="https://schema.org/Article"><span itemprop="name">n</span><time datetime="2020-01-02">d</time></div>
<TABLE><TR><TD>cell</TD></TR></TABLE></div></body></html>`;

const SELECTORS = [
  'p',
  'h1,h2',
  'h1, h2, h3',
  'object,embed,iframe',
  'script, noscript',
  'table',
  'td',
  'template',
  'meta[content]',
  'link[rel][href]',
  'base[href]',
  'a[href], area[href]',
  '[itemscope]',
  'time[datetime]',
  'div, section, p',
];

function describeNodes(nodes: Iterable<DomElement>): string[] {
  return [...nodes].map((node) => `${node.localName}:${(node.textContent ?? '').slice(0, 12)}`);
}

function expectSameAnswers(document: DomDocument, roots: (DomDocument | DomElement)[]) {
  for (const selectors of SELECTORS) {
    expect(simpleSelectorsOf(selectors)).not.toBeNull();
    for (const root of roots) {
      const fast = describeNodes(root.querySelectorAll(selectors));
      expect({ selectors, nodes: fast }).toEqual({
        selectors,
        nodes: describeNodes(root.querySelectorAll(throughCssSelect(selectors))),
      });
      const first = root.querySelector(selectors);
      const expected = root.querySelector(throughCssSelect(selectors));
      expect(first === expected).toBe(true);
    }
  }
  expect(document.querySelectorAll('h1,h2').length).toBeGreaterThan(1);
}

describe('simple selectors', () => {
  test('tag lists and attribute presence are recognised; anything else is left to css-select', () => {
    expect(simpleSelectorsOf('h1, h2')).toEqual([
      { tag: 'h1', attributes: [] },
      { tag: 'h2', attributes: [] },
    ]);
    expect(simpleSelectorsOf('link[rel][href]')).toEqual([{ tag: 'link', attributes: ['rel', 'href'] }]);
    expect(simpleSelectorsOf('[itemscope]')).toEqual([{ tag: null, attributes: ['itemscope'] }]);
    for (const other of ['article time[datetime]', '[role="main"]', 'div > p', '.a', '#a', 'p:first-child', '*', '']) {
      expect(simpleSelectorsOf(other)).toBeNull();
    }
  });

  test('answer as linkedom does: same elements, same order, templates not searched, from documents and elements', () => {
    const document = parseDocument(MARKUP);
    // Elements created by script carry upper-case names in linkedom.
    const created = document.createElement('P');
    created.textContent = 'created';
    document.body!.appendChild(created);
    const section = document.querySelector('section')!;
    expectSameAnswers(document, [document, document.body!, section, document.querySelector('#a')!]);
  });

  test('answer as linkedom does on a real page', () => {
    const document = parseDocument(readFileSync('test/fixtures/site/articles/harbour-news.html', 'utf8'));
    expectSameAnswers(document, [document, document.body!]);
  });
});
