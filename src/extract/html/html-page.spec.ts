import { readFileSync } from 'node:fs';
import { parseDocument } from './dom.js';
import { type HtmlOptions, extractHtml } from './html-page.js';
import { looksJavaScriptBuilt } from './javascript-built.js';
import { normalizeDate } from './page-metadata.js';

const ORIGIN = 'https://news.example.org';
const page = (name: string) =>
  readFileSync(`test/fixtures/site/articles/${name}`, 'utf8').replaceAll('{{origin}}', ORIGIN);
const extract = (name: string, options: Partial<HtmlOptions> = {}) =>
  extractHtml(page(name), `${ORIGIN}/articles/${name}`, { depth: 'basic', format: 'markdown', ...options });

describe('main content', () => {
  test('a news article keeps its story and drops navigation, ads, share tools, asides, comments and footer', () => {
    const { content, source } = extract('harbour-news.html');
    expect(source).toBe('readability');
    expect(content).toMatch(/^Residents of Port Aldery have voted/);
    expect(content).toContain('## What the plan involves');
    expect(content).toContain('The council has promised a working group with the fishermen');
    for (const boilerplate of [
      'We use cookies',
      'Politics',
      'Advertisement',
      'Share on Facebook',
      'Storm damage bill',
      'Most read',
      'seaview42',
      'Sign up for our free daily newsletter',
      'All rights reserved',
      'Search the Courier',
      'Waves broke over the old wall', // a caption: basic drops captions
    ]) {
      expect(content).not.toContain(boilerplate);
    }
  });

  test('a page whose content is its links (a table of contents) keeps them, rather than ending up empty', () => {
    const sections = ['Models and databases', 'Handling HTTP requests', 'Working with forms', 'Templates', 'Testing'];
    const toc = sections
      .map(
        (title, i) =>
          `<li><a href="/topics/s${i}/">${title}</a><ul>` +
          [1, 2, 3].map((n) => `<li><a href="/topics/s${i}/p${n}.html">${title}, part ${n}</a></li>`).join('') +
          '</ul></li>',
      )
      .join('');
    const html = `<!doctype html><html><head><title>Using the framework</title></head><body>
      <div class="document"><div class="body"><h1>Using the framework</h1><div class="toctree"><ul>${toc}</ul></div>
      </div></div></body></html>`;
    const result = extractHtml(html, `${ORIGIN}/topics/index.html`, { depth: 'basic', format: 'text' });
    for (const title of sections) expect(result.content).toContain(`${title}, part 2`);
  });

  const story = (inner: string) => {
    return `<!doctype html><html><head><title>The harbour wall</title></head><body><nav><a href="/">Home</a></nav>
      <article><h1>The harbour wall</h1>${paragraph(1)}${paragraph(2)}${inner}${paragraph(3)}${paragraph(4)}</article>
      <footer>Courier</footer></body></html>`;
  };
  const text = (html: string) =>
    extractHtml(html, `${ORIGIN}/articles/wall.html`, { depth: 'basic', format: 'text' }).content;

  test('a block that a CSS framework hides on every screen goes, unless a responsive class shows it again', () => {
    const content = text(
      story(
        '<div class="d-none d-print-block">Citation: The harbour wall, retrieved from the print edition</div>' +
          '<div class="mt-2 hidden">Subscribe to read the rest of the harbour series today</div>' +
          '<p class="overflow-hidden">The wall was finished in 1894 by the town council.</p>' +
          '<p class="d-none d-md-block">Engineers inspect the wall every spring and autumn.</p>' +
          '<p class="hidden lg:block">The fishermen repaint its beacon each year.</p>',
      ),
    );
    expect(content).not.toContain('Citation');
    expect(content).not.toContain('Subscribe to read');
    expect(content).toContain('finished in 1894');
    expect(content).toContain('every spring and autumn');
    expect(content).toContain('repaint its beacon');
  });

  test('a short label that introduces a run of teaser links goes with them; a lead-in to one linked line stays', () => {
    const teaser = (title: string) => `<p><a href="/articles/${title.length}.html">${title}</a></p>`;
    const content = text(
      story(
        "<p>Here's the thing:</p>" +
          '<p><a href="/guides/wall.html">Read our guide to the harbour wall and its history</a></p>' +
          '<p>You may also like...</p>' +
          teaser('Storm damage bill rises again') +
          teaser('Fishermen protest the new quotas') +
          teaser('The lighthouse reopens to visitors'),
      ),
    );
    expect(content).not.toContain('You may also like');
    expect(content).not.toContain('Storm damage bill');
    expect(content).toContain("Here's the thing:");
  });

  const paragraph = (n: number) =>
    `<p>Paragraph ${n} of the story about the harbour wall, long enough to read as prose and to be the article that a reader came for.</p>`;

  test("the article's heading block (a <header> with the <h1>: standfirst, dates) goes; a section's header stays", () => {
    const html = `<!doctype html><html><head><title>The harbour wall</title></head><body>
      <article><header><h1>The harbour wall</h1>
      <h2>Councillors voted to rebuild the old wall before the winter storms arrive in the bay</h2>
      <div class="when"><time datetime="2019-11-19">Published 10:48, Tue, Nov 19, 2019</time></div></header>
      ${paragraph(1)}${paragraph(2)}
      <section><header><h2>What the plan involves</h2></header>${paragraph(3)}${paragraph(4)}</section>
      </article></body></html>`;
    const content = text(html);
    expect(content).toMatch(/^Paragraph 1 of the story/);
    expect(content).not.toContain('Councillors voted');
    expect(content).not.toContain('Published 10:48');
    expect(content).toContain('What the plan involves');
  });

  test("schema.org microdata's date, author and an article's summary go; a product's description stays", () => {
    const article = `<!doctype html><html itemscope itemtype="http://schema.org/NewsArticle"><head><title>The harbour wall</title></head><body>
      <div class="story"><h1 itemprop="headline">The harbour wall</h1>
      <div itemprop="description"><p>Councillors voted to rebuild the old wall before the winter storms arrive in the bay.</p></div>
      <div itemprop="articleBody"><span itemprop="datePublished">Friday, 22 October 2010 at 20:13</span>
      ${paragraph(1)}${paragraph(2)}${paragraph(3)}</div></div></body></html>`;
    const content = text(article);
    expect(content).toContain('Paragraph 1 of the story');
    expect(content).not.toContain('Councillors voted');
    expect(content).not.toContain('22 October 2010');

    const product = `<!doctype html><html><head><title>Harbour lamp</title></head><body>
      <div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Harbour lamp</h1>
      <div itemprop="description"><p>A cast-iron lamp modelled on the beacon of the old harbour wall, ${'with a glass shade and a brass base, '.repeat(8)}sold by the Port Aldery forge.</p></div>
      </div></body></html>`;
    expect(text(product)).toContain('A cast-iron lamp modelled on the beacon');
  });

  test('a source cited by its address stays, although it is all link; a linked headline goes', () => {
    const content = text(
      story(
        '<p>Sources:</p>' +
          '<p><a href="http://www.harbour-archive.example/2013/02/wall-survey.html#ixzz2PpyAj3AN">http://www.harbour-archive.example/2013/02/wall-survey.html#ixzz2PpyAj3AN</a></p>' +
          '<p><a href="https://council.example/minutes/2364">council.example/minutes/2364</a></p>' +
          '<p><a href="https://news.example.org/articles/storm.html">Storm damage bill rises again</a></p>',
      ),
    );
    expect(content).toContain('http://www.harbour-archive.example/2013/02/wall-survey.html');
    expect(content).not.toContain('Storm damage bill');
  });

  test("a quoted social post stays in the story, although its wrapper's class says social", () => {
    const content = text(
      story(
        '<div class="social-media-embed"><blockquote class="twitter-tweet"><p lang="en">The harbour wall held last ' +
          'night, the whole town came out to see <a href="https://t.co/abc">https://t.co/abc</a></p>— Port Aldery ' +
          '(@portaldery) <a href="https://twitter.com/portaldery/status/1">November 18, 2019</a></blockquote></div>' +
          '<div class="social-share"><a href="https://twitter.com/share">Share on Twitter</a> <a href="https://facebook.com/share">Share on Facebook</a></div>',
      ),
    );
    expect(content).toContain('The harbour wall held last night');
    expect(content).toContain('(@portaldery)');
    expect(content).not.toContain('Share on');
  });

  test('"follow us" lines that end the story go, with the short linked lines after them; inside the story they stay', () => {
    const ending = (lines: string) =>
      text(`<!doctype html><html><head><title>The harbour wall</title></head><body>
        <article><h1>The harbour wall</h1>${paragraph(1)}${paragraph(2)}${paragraph(3)}${lines}</article></body></html>`);
    const follow =
      '<p>Rachel Lowe may be reached at rachel@news.example.org. Follow her on Twitter <a href="https://twitter.com/rachellowe">@rachellowe</a>.</p>' +
      '<p>Get the latest updates in your inbox. <a href="https://news.example.org/newsletters">Subscribe to our newsletters</a>.</p>';
    const content = ending(follow);
    expect(content).toContain('Paragraph 3 of the story');
    expect(content).not.toContain('Follow her on Twitter');
    expect(content).not.toContain('Subscribe to our newsletters');

    // The same lines in the middle of the story are the story's.
    expect(text(story(follow))).toContain('Follow her on Twitter');

    // A line without a link after it: the follow line does not end the story, and both stay.
    const asked = ending(
      '<p>Be sure to visit the Port Aldery forge on <a href="https://www.facebook.com/portalderyforge">Facebook</a>.</p>' +
        '<p>What would you ask the council about the harbour wall?</p>',
    );
    expect(asked).toContain('visit the Port Aldery forge on Facebook');
    expect(asked).toContain('What would you ask the council');

    // A quoted post's signature links to its author's account: the quotation is the story's.
    const quoted = ending(
      '<blockquote><p>The harbour wall held last night, the whole town came out to see.</p>' +
        '<p>— Port Aldery (<a href="https://twitter.com/portaldery">@portaldery</a>) November 18, 2019</p></blockquote>',
    );
    expect(quoted).toContain('(@portaldery)');

    // A wrapper whose own text is a short follow line holds the story: it stays.
    const wrapped = text(`<!doctype html><html><head><title>The harbour wall</title></head><body><article>
      <h1>The harbour wall</h1><div>${paragraph(1)}${paragraph(2)}${paragraph(3)}
      Follow us on <a href="https://twitter.com/courier">Twitter</a></div></article></body></html>`);
    expect(wrapped).toContain('Paragraph 3 of the story');

    // A link to one post is a source, not an account to follow.
    const cited = ending(
      '<p>The mayor announced it <a href="https://twitter.com/portaldery/status/1196">on Twitter</a>.</p>',
    );
    expect(cited).toContain('The mayor announced it on Twitter');
  });

  test('text format: paragraphs and headings as plain lines, no markup', () => {
    const { content } = extract('harbour-news.html', { format: 'text' });
    expect(content).toContain('\n\nWhat the plan involves\n\n');
    expect(content).not.toMatch(/[#*[\]]/);
  });

  test('a page too short for Readability falls back to the body without header, navigation and footer', () => {
    const { content, source, title, language } = extract('short-notice.html', { format: 'text' });
    expect(source).toBe('fallback');
    expect(content).toBe(
      'Opening hours\n\nThe library is open Monday to Friday from 9:00 to 18:00.\n\nOn Saturdays we open from 10:00 to 14:00.',
    );
    expect(title).toBe('Opening hours');
    expect(language).toBe('de');
  });

  test('basic keeps the words of a data table as lines; advanced keeps the table', () => {
    const basic = extract('planets-table.html').content;
    const advanced = extract('planets-table.html', { depth: 'advanced' }).content;
    expect(basic).toContain('Mercury | 4,879 | 58 | 88 days | 0');
    expect(basic).not.toContain('| --- |');
    expect(advanced).toContain('| Planet | Diameter (km) | Distance from Sun (million km) | Orbital period | Moons |');
    expect(advanced).toContain('| --- | --- | --- | --- | --- |');
    expect(advanced).toContain('| Neptune | 49,528 | 4,495 | 165 years | 16 |');
    expect(advanced).toContain('~~Pluto is the ninth planet.~~');
  });

  test('advanced keeps figure captions and turns embedded video into a link; basic drops both', () => {
    const basic = extract('blog-post.html').content;
    const advanced = extract('blog-post.html', { depth: 'advanced' }).content;
    expect(advanced).toContain('The crumb after the fourth round of adjustments.');
    expect(advanced).toContain('[Video: Shaping a high-altitude boule](https://www.youtube.com/watch?v=abcDEF12345)');
    expect(basic).not.toContain('The crumb after the fourth round');
    expect(basic).not.toContain('youtube');
    for (const content of [basic, advanced]) {
      expect(content).toContain('1.  Reduce the starter from 20 per cent to 15 per cent of the flour weight.');
      expect(content).toContain('```\nwater = flour * 0.78\nstarter = flour * 0.15\nsalt = flour * 0.02\n```');
      expect(content).not.toContain('Archives');
      expect(content).not.toContain('Powered by a very small server');
    }
  });

  test('basic drops the caption an image shares a container with (no <figcaption>); a short story with its picture stays', () => {
    const paragraph = (n: number) =>
      `<p>Paragraph ${n} of the story tells what the council decided about the harbour wall, who spoke for it and ` +
      `who spoke against it, and what the fishermen will do while the work goes on through the winter.</p>`;
    const html = `<!doctype html><html><head><title>Wall</title></head><body><article><h1>Wall</h1>
      <div class="image top"><img src="/wall.jpg" alt=""><p>In this 2019 file photo, waves break over the old wall.</p></div>
      ${[1, 2, 3, 4, 5, 6].map(paragraph).join('')}
      <p>Sentence with an inline <img src="/icon.png" alt="">icon, which is part of the prose of the story.</p>
      </article></body></html>`;
    const basic = extractHtml(html, `${ORIGIN}/wall.html`, { depth: 'basic', format: 'text' }).content;
    expect(basic).toContain('Paragraph 6 of the story');
    expect(basic).toContain('Sentence with an inline icon');
    expect(basic).not.toContain('waves break over the old wall');
    const advanced = extractHtml(html, `${ORIGIN}/wall.html`, { depth: 'advanced', format: 'text' }).content;
    expect(advanced).toContain('waves break over the old wall');

    const short = `<!doctype html><html><head><title>Notice</title></head><body><div class="notice">
      <img src="/pool.jpg" alt=""><p>The pool closes for cleaning on Monday and opens again on Wednesday at seven.</p>
      </div></body></html>`;
    expect(extractHtml(short, `${ORIGIN}/notice.html`, { depth: 'basic', format: 'text' }).content).toContain(
      'The pool closes for cleaning on Monday',
    );
  });

  test('an article whose wrapper has an unlucky class ("share") is kept; a block of links with that class goes', () => {
    const story = Array.from(
      { length: 5 },
      (_, i) =>
        `<p>Paragraph ${i + 1} of the story, which is long enough to read like prose and not like a box of buttons or links.</p>`,
    ).join('');
    const html = `<html><body><div class="post js-share-enabled"><h1>T</h1>${story}</div><div class="share-bar"><a href="/x">Share this</a></div><div class="comments">${story.replaceAll('story', 'comment')}${story.replaceAll('story', 'reply')}</div></body></html>`;
    const { content } = extractHtml(html, 'https://a.example/post', { depth: 'basic', format: 'text' });
    expect(content).toContain('Paragraph 5 of the story');
    expect(content).not.toContain('Share this');
    expect(content).not.toContain('of the comment');
  });

  test('XHTML', () => {
    const { content, language, title } = extract('field-notes.xhtml', { format: 'text' });
    expect(content).toMatch(/^Au petit matin, les paludiers ratissent le sel/);
    expect(content).not.toContain('Accueil');
    expect(language).toBe('fr');
    expect(title).toBe('Les marais salants');
  });
});

describe('metadata', () => {
  test('title, images (og:image first, content images, no ads, pixels or data: URIs), favicon, date, language', () => {
    const news = extract('harbour-news.html');
    expect(news.title).toBe('Harbour town votes to rebuild its sea wall');
    expect(news.images).toEqual([`${ORIGIN}/images/sea-wall-hero.jpg`, `${ORIGIN}/images/flood-gate-plan.png`]);
    expect(news.favicon).toBe(`${ORIGIN}/static/favicon-32.png`);
    expect(news.publishedDate).toBe('2024-03-14T08:30:00.000Z');
    expect(news.language).toBe('en-GB');

    const blog = extract('blog-post.html');
    expect(blog.images).toEqual([`${ORIGIN}/img/loaf-cover.jpg`, `${ORIGIN}/img/crumb-shot.jpg`]);
    expect(blog.favicon).toBe(`${ORIGIN}/articles/favicon.ico`); // "shortcut icon", relative to the page
    expect(blog.publishedDate).toBe('2023-09-02'); // microdata datePublished on a <time>
  });

  test('favicon: a data: icon is skipped; without any icon link, none (no guessed /favicon.ico)', () => {
    expect(extract('planets-table.html').favicon).toBe(`${ORIGIN}/icons/sky.svg`);
    expect(extract('short-notice.html').favicon).toBeNull();
  });

  test('citation_publication_date', () => {
    expect(extract('paper-abstract.html').publishedDate).toBe('2022-06-15');
  });

  test('nofollow: a robots meta tag that says nofollow or none; not index-only rules, nor other robots', () => {
    const withMeta = (meta: string) =>
      extractHtml(`<html><head>${meta}</head><body><p>Text.</p></body></html>`, `${ORIGIN}/a`, {
        depth: 'basic',
        format: 'markdown',
      }).noFollow;
    expect(withMeta('<meta name="robots" content="noindex, nofollow">')).toBe(true);
    expect(withMeta('<meta name="ROBOTS" content="NONE">')).toBe(true);
    expect(withMeta('<meta name="robots" content="noindex">')).toBe(false);
    expect(withMeta('<meta name="googlebot" content="nofollow">')).toBe(false);
    expect(extract('harbour-news.html').noFollow).toBe(false);
  });

  test('links: absolute http(s), from the whole page, without fragments, de-duplicated', () => {
    const links = extract('harbour-news.html').links.map((link) => link.url);
    expect(links).toContain(`${ORIGIN}/local/`);
    expect(links).toContain('https://shop.example.org/subscribe');
    expect(links).toContain(`${ORIGIN}/privacy`);
    expect(links).toContain(`${ORIGIN}/local/storm-damage-2023`);
    expect(links.filter((l) => l === `${ORIGIN}/`)).toHaveLength(1);
    expect(links.some((l) => l.startsWith('mailto:') || l.includes('#'))).toBe(false);
  });

  test('links carry their anchor texts, those of one page (its sections too) merged', () => {
    const page = extractHtml(
      `<title>Contents</title><main><h1>Contents</h1><p>Long enough text to be the content of this page, and more.</p>
       <ul><li><a href="tutorial02.html">Part 2</a><ul><li><a href="tutorial02.html#database-setup">Database
       setup</a></li></ul></li><li><a href="/faq"><img src="q.png" alt=""></a></li></ul>
       <map><area href="/area" alt="An area"></map></main>`,
      `${ORIGIN}/intro/contents.html`,
      { depth: 'basic', format: 'markdown' },
    );
    expect(page.links).toEqual([
      { url: `${ORIGIN}/intro/tutorial02.html`, text: 'Part 2 | Database setup' },
      { url: `${ORIGIN}/faq`, text: '' },
      { url: `${ORIGIN}/area`, text: 'An area' },
    ]);
  });

  test.each([
    ['2024-03-14T08:30:00Z', '2024-03-14T08:30:00.000Z'],
    ['2024-03-14T10:30:00+02:00', '2024-03-14T08:30:00.000Z'],
    ['2022/06/15', '2022-06-15'],
    ['2022-6-5', '2022-06-05'],
    ['March 14, 2024', '2024-03-14'],
    ['2021', '2021'],
    ['yesterday', null],
    ['2022/13/45', null],
  ])('normalizeDate(%s) = %s', (input, expected) => expect(normalizeDate(input)).toBe(expected));
});

describe('structured data', () => {
  test('JSON-LD with @graph flattened, the context carried down; OpenGraph', () => {
    const { structuredData } = extract('harbour-news.html');
    const jsonLd = structuredData.filter((item) => item['@source'] === 'json-ld');
    expect(jsonLd.map((item) => item['@type'])).toEqual(['NewsArticle', 'Organization']);
    expect(jsonLd[0]).toMatchObject({
      '@context': 'https://schema.org',
      headline: 'Harbour town votes to rebuild its sea wall',
      author: { '@type': 'Person', name: 'Mara Ellison' },
    });
    expect(structuredData.find((item) => item['@source'] === 'opengraph')).toMatchObject({
      'og:type': 'article',
      'og:image': `${ORIGIN}/images/sea-wall-hero.jpg`,
      'article:published_time': '2024-03-14T08:30:00Z',
    });
  });

  test('microdata: nested items, content attributes, URLs from links, repeated meta merged', () => {
    const { structuredData } = extract('kettle-product.html');
    expect(structuredData.find((item) => item['@source'] === 'microdata')).toEqual({
      '@source': 'microdata',
      '@context': 'https://schema.org',
      '@type': 'Product',
      '@id': 'urn:sku:KT-18',
      name: 'Stovetop Kettle 1.8 L',
      image: 'https://cdn.hearth.example/kettle-front.jpg',
      sku: 'KT-18',
      brand: { '@type': 'Brand', name: 'Hearthworks' },
      description: expect.stringMatching(/^A whistling stovetop kettle.*when you pour\.$/),
      offers: { '@type': 'Offer', priceCurrency: 'EUR', price: '39.00', availability: 'https://schema.org/InStock' },
      aggregateRating: { '@type': 'AggregateRating', ratingValue: '4.6', reviewCount: '212' },
    });
    expect(structuredData.find((item) => item['@source'] === 'opengraph')).toMatchObject({
      'product:price:amount': '39.00',
    });
  });

  test('citation_* meta tags, repeated authors as a list', () => {
    const { structuredData } = extract('paper-abstract.html');
    expect(structuredData.find((item) => item['@source'] === 'citation')).toMatchObject({
      citation_title: 'Sediment transport under breaking waves: a field study',
      citation_author: ['Okafor, Chidi', 'Lindqvist, Sofia'],
      citation_doi: '10.5555/jcd.2022.041',
    });
  });

  test('broken JSON-LD is skipped, lenient JSON-LD (raw newlines, trailing semicolon) is read', () => {
    const html = `<html><head>
      <script type="application/ld+json">{ not json</script>
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"Event","name":"Line
break"};</script>
      <script type="application/ld+json">[{"@type":"Place","name":"A"},{"@type":"Place","name":"B"}]</script>
      </head><body><p>x</p></body></html>`;
    const { structuredData } = extractHtml(html, 'https://a.example/', { depth: 'basic', format: 'text' });
    expect(structuredData.map((item) => [item['@type'], item.name])).toEqual([
      ['Event', 'Line break'],
      ['Place', 'A'],
      ['Place', 'B'],
    ]);
  });
});

describe('looksJavaScriptBuilt', () => {
  test('an empty app shell with a noscript hint does; a real article does not', () => {
    expect(looksJavaScriptBuilt(parseDocument(page('js-app.html')))).toBe(true);
    expect(looksJavaScriptBuilt(parseDocument(page('harbour-news.html')))).toBe(false);
    expect(looksJavaScriptBuilt(parseDocument(page('short-notice.html')))).toBe(false);
    expect(
      looksJavaScriptBuilt(
        parseDocument('<html><body><div id="app"></div><script src="/a.js"></script></body></html>'),
      ),
    ).toBe(true);
  });
});
