import { outlineHtml } from './html-outline.js';

describe('outlineHtml', () => {
  const page = 'https://e.com/docs/guide/intro.html';

  test('links resolved, normalized and de-duplicated in document order, with their anchor texts', () => {
    const outline = outlineHtml(
      `<html><head><title> Intro &amp; setup </title></head><body>
        <nav><a href="/docs/">Docs home</a> <a href="setup.html#step-1">Setup</a></nav>
        <a href="setup.html?utm_source=x">Install <b>the CLI</b></a>
        <a href="../api/" title="API reference"><img src="i.png" alt="API icon"></a>
        <a href="/docs">Docs</a>
        <a href="mailto:a@e.com">mail</a> <a href="javascript:void(0)">js</a> <a>no href</a>
        <map><area href="/area-target" alt="Area"></map>
      </body></html>`,
      page,
    );
    expect(outline.title).toBe('Intro & setup');
    expect(outline.links).toEqual([
      { url: 'https://e.com/docs/', text: 'Docs home | Docs' },
      { url: 'https://e.com/docs/guide/setup.html', text: 'Setup | Install the CLI' },
      { url: 'https://e.com/docs/api/', text: 'API reference API icon' },
      { url: 'https://e.com/area-target', text: 'Area' },
    ]);
    expect(outline.noFollow).toBe(false);
  });

  test('<base href> changes how relative links resolve', () => {
    const outline = outlineHtml('<head><base href="https://cdn.e.com/v2/"></head><a href="page">p</a>', page);
    expect(outline.links.map((l) => l.url)).toEqual(['https://cdn.e.com/v2/page']);
  });

  test('the summary holds the description and the h1–h3 headings; robots nofollow is reported', () => {
    const outline = outlineHtml(
      `<meta name="description" content="All about billing."><meta name="robots" content="noindex, nofollow">
       <h1>Billing</h1><p>body text is not in the summary</p><h2>Invoices <small>and receipts</small></h2><h4>minor</h4>`,
      page,
    );
    expect(outline.summary).toBe('All about billing. Billing Invoices and receipts');
    expect(outline.noFollow).toBe(true);
    expect(outline.title).toBeNull();
  });

  test("a link's context is the heading it first appears under (h1–h6)", () => {
    const outline = outlineHtml(
      `<a href="/home">Home</a><h2>The model layer</h2><p><a href="/models">Models</a>
       <h5>Migrations <a href="/in-heading">¶</a></h5><a href="/migrations">Introduction</a> <a href="/models">again</a>`,
      page,
    );
    expect(outline.links).toEqual([
      { url: 'https://e.com/home', text: 'Home' },
      { url: 'https://e.com/models', text: 'Models | again', context: 'The model layer' },
      { url: 'https://e.com/in-heading', text: '¶', context: 'The model layer' },
      { url: 'https://e.com/migrations', text: 'Introduction', context: 'Migrations ¶' },
    ]);
  });

  test('an unclosed anchor still counts', () => {
    const outline = outlineHtml('<a href="/one">One<a href="/two">Two', page);
    expect(outline.links).toEqual([
      { url: 'https://e.com/one', text: 'One' },
      { url: 'https://e.com/two', text: 'Two' },
    ]);
  });
});
