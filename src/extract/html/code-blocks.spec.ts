import { flattenCodeBlocks, withoutCodeSpans } from './code-blocks.js';
import { parseDocument } from './dom.js';
import { extractHtml } from './html-page.js';

/** A Sphinx-style highlighted block: a span per token. */
const HIGHLIGHTED =
  '<div class="highlight"><pre><span></span><span class="kn">from</span> <span class="nn">django.db</span> ' +
  '<span class="kn">import</span> <span class="n">models</span>\n\n<span class="k">class</span> ' +
  '<span class="nc">Person</span><span class="p">(</span><span class="n">models</span><span class="o">.</span>' +
  '<span class="n">Model</span><span class="p">):</span>\n    <span class="n">name</span> <span class="o">=</span> ' +
  '<span class="s2">&quot;#1 &lt;b&gt;&quot;</span>\n</pre></div>';
const CODE = 'from django.db import models\n\nclass Person(models.Model):\n    name = "#1 <b>"\n';

const prose = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `<p>Paragraph ${i + 1} explains the model layer, with enough words, commas, and clauses to be prose.</p>`,
  ).join('');

describe('code blocks', () => {
  test('a highlighted block becomes its text in one code element; the text is unchanged', () => {
    const document = parseDocument(`<html><body>${HIGHLIGHTED}</body></html>`);
    const removed = flattenCodeBlocks(document);
    const pre = document.querySelector('pre')!;
    expect(removed).toBe(14);
    expect(pre.children.length).toBe(1);
    expect(pre.children[0]!.localName).toBe('code');
    expect(pre.textContent).toBe(CODE);
  });

  test("a block's own code element stays, with its language class", () => {
    const document = parseDocument(
      '<html><body><pre><code class="language-js"><span class="k">const</span> a = <em>1</em>;</code></pre></body></html>',
    );
    expect(flattenCodeBlocks(document)).toBe(2);
    expect(document.querySelector('pre')!.innerHTML).toBe('<code class="language-js">const a = 1;</code>');
  });

  test('blocks with links, images or line breaks are left as they are', () => {
    for (const inner of ['see <a href="/x">x</a>', 'a<br>b', '<span>a <img src="/i.png"></span>']) {
      const document = parseDocument(`<html><body><pre>${inner}</pre></body></html>`);
      const before = document.querySelector('pre')!.innerHTML;
      expect(flattenCodeBlocks(document)).toBe(0);
      expect(document.querySelector('pre')!.innerHTML).toBe(before);
    }
  });

  test('the markup loses the spans of its pre blocks, and only those; the text stays the same', () => {
    const html =
      `<p><span class="x">outside</span></p>${HIGHLIGHTED}` +
      '<PRE class=x><SPAN title="a > b" data-x=\'1\'>one</SPAN> <span class=k>two</span><span/></PRE><pre>plain</pre>';
    const { html: stripped, removed } = withoutCodeSpans(html);
    expect(removed).toBe(15 + 3);
    expect(stripped).toContain('<p><span class="x">outside</span></p>');
    expect(stripped).toContain('<PRE class=x>one two</PRE><pre>plain</pre>');
    const text = (markup: string) => [...parseDocument(markup).querySelectorAll('pre')].map((pre) => pre.textContent);
    expect(text(stripped)).toEqual(text(html));
  });

  test('in markdown a highlighted block is fenced code, verbatim (no escapes)', () => {
    const html = `<html><head><title>Models</title></head><body><article><h1>Models</h1>${prose(4)}${HIGHLIGHTED}${prose(2)}</article></body></html>`;
    const { content } = extractHtml(html, 'https://docs.example.org/models.html', {
      depth: 'basic',
      format: 'markdown',
    });
    expect(content).toContain(`\`\`\`\n${CODE}\`\`\``);
    const text = extractHtml(html, 'https://docs.example.org/models.html', { depth: 'basic', format: 'text' }).content;
    expect(text).toContain('class Person(models.Model):\n    name = "#1 <b>"');
  });
});
