/**
 * bench:crawl's `docs` site (issue 40): a documentation site shaped like one the crawl has never seen, generated
 * deterministically in memory. 520 pages, 39.0 MB: a home page, 12 sections of an index and 42 pages each (median
 * 66 KB), a 2.45 MB changelog, a 1.56 MB general index (14,400 links) and a 0.7 MB list of every API symbol (6,900
 * links); 75,000 relative links in all. A page is built as themes build them: inlined critical CSS and
 * an SVG icon sprite in the page, a sidebar with every page of its section, breadcrumbs, an "on this page" list,
 * prose with cross-references, highlighted code (a span per token), tables and admonitions, previous and next links.
 */

const SECTIONS = [
  'getting-started',
  'tutorial',
  'guides',
  'concepts',
  'configuration',
  'deployment',
  'api',
  'cli',
  'integrations',
  'security',
  'operations',
  'contributing',
] as const;
const PAGES_PER_SECTION = 42;
export const CHANGELOG_BYTES = 2_470_000;
export const GENINDEX_BYTES = 1_550_000;
export const SYMBOLS_BYTES = 700_000;

const VOCABULARY = (
  'the a of to and in is for that with on as by this be are from it or an can at which when each you your if not ' +
  'request response client server cluster node replica shard index query cache token session handler middleware ' +
  'worker queue job schedule retry timeout deadline backoff connection pool socket stream buffer chunk payload ' +
  'schema migration table column record field value key secret credential certificate policy role permission ' +
  'deployment container image volume network proxy gateway route endpoint header cookie redirect status error ' +
  'configuration option setting variable environment default override profile plugin extension hook event ' +
  'listener callback promise future transaction commit rollback snapshot backup restore metric trace log alert'
).split(' ');
const IDENTIFIERS = (
  'client config session pool router handler store cache queue worker scheduler logger tracer registry loader ' +
  'parser encoder decoder builder factory manager adapter provider resolver validator serializer dispatcher'
).split(' ');

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
const slugOf = (words: readonly string[]) => words.join('-');
const titleOf = (words: readonly string[]) =>
  words
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');

interface PageRef {
  readonly section: string;
  readonly slug: string;
  readonly title: string;
  /** Site path, e.g. /docs/guides/connection-pool.html. */
  readonly path: string;
}

function words(next: () => number, count: number): string[] {
  return Array.from({ length: count }, () => pick(next, VOCABULARY));
}

/** `href` from the page at `from` to the page at `to`, both site paths, written as a relative URL. */
function relative(from: string, to: string): string {
  const a = from.split('/').slice(1, -1);
  const b = to.split('/').slice(1);
  let common = 0;
  while (common < a.length && common < b.length - 1 && a[common] === b[common]) common++;
  return '../'.repeat(a.length - common) + b.slice(common).join('/');
}

function catalogue(): PageRef[][] {
  const next = random(40);
  return SECTIONS.map((section) => {
    const seen = new Set<string>();
    const pages: PageRef[] = [];
    while (pages.length < PAGES_PER_SECTION) {
      const name = [pick(next, IDENTIFIERS), ...words(next, 2).filter((w) => w.length > 3)];
      const slug = slugOf(name);
      if (seen.has(slug)) continue;
      seen.add(slug);
      pages.push({ section, slug, title: titleOf(name), path: `/docs/${section}/${slug}.html` });
    }
    return pages;
  });
}

const CSS = (() => {
  const next = random(7);
  const rules: string[] = [];
  for (let i = 0; i < 110; i++) {
    rules.push(
      `.${pick(next, IDENTIFIERS)}-${i}{margin:${i % 7}px ${i % 5}px;padding:0 ${i % 9}px;color:#${(i * 2654435761).toString(16).slice(0, 6).padEnd(6, '0')};font-size:${12 + (i % 6)}px;line-height:1.${4 + (i % 5)}}`,
    );
  }
  return rules.join('\n');
})();

const ICONS = Array.from(
  { length: 24 },
  (_, i) =>
    `<symbol id="icon-${i}" viewBox="0 0 24 24"><path d="M${i} 2l${(i % 7) + 3} ${(i % 5) + 4}h-${(i % 3) + 5}l${i % 4}.5 ${(i % 6) + 2}.25-${(i % 8) + 1} 3.75c-1.1 0-2 .9-2 2v${(i % 9) + 6}c0 1.1.9 2 2 2h12c1.1 0 2-.9 2-2V${(i % 4) + 8}l-${(i % 5) + 3}-${(i % 6) + 4}z"/></symbol>`,
).join('');

function codeBlock(next: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const ident = pick(next, IDENTIFIERS);
    const other = pick(next, IDENTIFIERS);
    out.push(
      `<span class="line"><span class="kd">const</span> <span class="nx">${ident}${i}</span> <span class="o">=</span> ` +
        `<span class="k">await</span> <span class="nx">${other}</span><span class="p">.</span>` +
        `<span class="nf">${pick(next, VOCABULARY)}</span><span class="p">(</span><span class="s1">'${pick(next, VOCABULARY)}'</span>` +
        `<span class="p">,</span> <span class="mi">${Math.floor(next() * 1000)}</span><span class="p">);</span></span>`,
    );
  }
  return `<div class="highlight-js notranslate"><div class="highlight"><pre><code>${out.join('\n')}</code></pre></div></div>`;
}

function paragraph(next: () => number, from: string, pages: readonly PageRef[], links: number): string {
  const sentences: string[] = [];
  for (let s = 0; s < 5; s++) {
    const w = words(next, 14 + Math.floor(next() * 10));
    if (s < links) {
      const target = pick(next, pages);
      w.splice(
        4,
        0,
        `<a class="reference internal" href="${relative(from, target.path)}#${slugOf(words(next, 2))}">${target.title}</a>`,
      );
    }
    if (next() < 0.4)
      w.splice(8, 0, `<code class="literal">${pick(next, IDENTIFIERS)}.${pick(next, VOCABULARY)}()</code>`);
    sentences.push(`${w[0]![0]!.toUpperCase()}${w.join(' ').slice(1)}.`);
  }
  return `<p>${sentences.join(' ')}</p>`;
}

function table(next: () => number): string {
  const rows = Array.from(
    { length: 6 + Math.floor(next() * 8) },
    () =>
      `<tr><td><code>${pick(next, IDENTIFIERS)}_${pick(next, VOCABULARY)}</code></td><td>${pick(next, ['string', 'integer', 'boolean', 'duration'])}</td><td>${words(next, 12).join(' ')}</td></tr>`,
  );
  return `<table class="docutils align-default"><thead><tr><th>Option</th><th>Type</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The page's frame: head, header, sidebar (every section, and every page of this one), footer around `main`. */
function frame(page: PageRef, sectionPages: readonly PageRef[], main: string, toc: readonly string[]): string {
  const sections = SECTIONS.map(
    (s) =>
      `<li class="toctree-l1${s === page.section ? ' current' : ''}"><a class="reference internal" href="${relative(page.path, `/docs/${s}/index.html`)}">${titleOf(s.split('-'))}</a></li>`,
  ).join('');
  const local = sectionPages
    .map(
      (p) =>
        `<li class="toctree-l2"><a class="reference internal${p.path === page.path ? ' current' : ''}" href="${relative(page.path, p.path)}"><svg class="icon"><use href="#icon-3"></use></svg>${p.title}</a></li>`,
    )
    .join('');
  const onThisPage = toc
    .map((id) => `<li><a class="reference internal" href="#${id}">${titleOf(id.split('-'))}</a></li>`)
    .join('');
  const home = relative(page.path, '/index.html');
  return `<!DOCTYPE html>
<html lang="en" data-content_root="../../"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} — Ferrous ${page.section === 'api' ? 'API' : 'Docs'}</title>
<meta name="description" content="${page.title}: ${titleOf(page.section.split('-'))} in the Ferrous documentation.">
<link rel="canonical" href="${page.path}"><link rel="stylesheet" href="${relative(page.path, '/_static/theme.css')}">
<style>${CSS}</style><script>window.DOCS_VERSION='4.2';document.documentElement.dataset.theme=localStorage.getItem('theme')||'auto';</script></head>
<body><svg xmlns="http://www.w3.org/2000/svg" style="display:none">${ICONS}</svg>
<div class="announcement">Ferrous 4.2 is out. <a href="${relative(page.path, '/docs/changelog.html')}">Read the changelog</a>.</div>
<header class="site-header"><a class="brand" href="${home}">Ferrous</a><nav class="top-nav"><ul>${SECTIONS.slice(0, 3)
    .map((s) => `<li><a href="${relative(page.path, `/docs/${s}/index.html`)}">${titleOf(s.split('-'))}</a></li>`)
    .join(
      '',
    )}</ul></nav><form class="search" action="${relative(page.path, '/search.html')}"><input type="search" name="q" placeholder="Search"></form></header>
<div class="page"><aside class="sidebar-drawer"><div class="sidebar-tree"><p class="caption">Contents</p><ul>${sections}</ul><p class="caption">${titleOf(page.section.split('-'))}</p><ul>${local}</ul>
<ul><li><a href="${relative(page.path, '/docs/genindex.html')}">Index</a></li><li><a href="${relative(page.path, '/docs/api-symbols.html')}">All symbols</a></li></ul></div></aside>
<div class="main"><nav class="breadcrumbs" aria-label="breadcrumbs"><ol><li><a href="${home}">Home</a></li><li><a href="${relative(page.path, `/docs/${page.section}/index.html`)}">${titleOf(page.section.split('-'))}</a></li><li>${page.title}</li></ol></nav>
<article role="main" itemprop="articleBody">${main}</article></div>
<aside class="toc-drawer"><p class="toc-title">On this page</p><ul>${onThisPage}</ul></aside></div>
<footer><div class="related-pages"><a class="prev-page" href="${relative(page.path, sectionPages[0]!.path)}">Previous</a> <a class="next-page" href="${relative(page.path, sectionPages[sectionPages.length - 1]!.path)}">Next</a></div>
<p>© 2026 The Ferrous authors. Made with Sphinx and Furo. <a href="${relative(page.path, '/docs/contributing/index.html')}">Contribute</a> · <a href="${relative(page.path, '/docs/security/index.html')}">Security</a></p></footer>
<script src="${relative(page.path, '/_static/theme.js')}"></script></body></html>`;
}

function articlePage(page: PageRef, sectionPages: readonly PageRef[], all: readonly PageRef[], seed: number): string {
  const next = random(seed);
  const sectionsCount = 4 + Math.floor(next() * 5);
  const toc: string[] = [];
  let body = `<section id="${page.slug}"><h1>${page.title}<a class="headerlink" href="#${page.slug}">¶</a></h1>`;
  body += paragraph(next, page.path, all, 2);
  for (let s = 0; s < sectionsCount; s++) {
    const id = slugOf(words(next, 3));
    toc.push(id);
    body += `<section id="${id}"><h2>${titleOf(id.split('-'))}<a class="headerlink" href="#${id}">¶</a></h2>`;
    for (let p = 0; p < 2 + Math.floor(next() * 4); p++) body += paragraph(next, page.path, all, next() < 0.5 ? 1 : 0);
    if (next() < 0.7) body += codeBlock(next, 8 + Math.floor(next() * 14));
    if (next() < 0.3) body += table(next);
    if (next() < 0.3)
      body += `<div class="admonition note"><p class="admonition-title">Note</p>${paragraph(next, page.path, all, 1)}</div>`;
    body += '</section>';
  }
  body += `<section id="see-also"><h2>See also</h2><ul>${Array.from({ length: 3 }, () => {
    const target = pick(next, all);
    return `<li><a class="reference internal" href="${relative(page.path, target.path)}">${target.title}</a></li>`;
  }).join('')}</ul></section></section>`;
  return frame(page, sectionPages, body, toc);
}

function sectionIndex(page: PageRef, sectionPages: readonly PageRef[], all: readonly PageRef[], seed: number): string {
  const next = random(seed);
  const body =
    `<section id="${page.slug}"><h1>${page.title}</h1>${paragraph(next, page.path, all, 1)}${paragraph(next, page.path, all, 0)}` +
    `<div class="toctree-wrapper compound"><ul>${sectionPages
      .map(
        (p) =>
          `<li class="toctree-l1"><a class="reference internal" href="${relative(page.path, p.path)}">${p.title}</a> — ${words(next, 10).join(' ')}</li>`,
      )
      .join('')}</ul></div></section>`;
  return frame(page, sectionPages, body, []);
}

function changelog(page: PageRef, all: readonly PageRef[]): string {
  const next = random(2470);
  const parts: string[] = [];
  let size = 0;
  for (let release = 0; size < CHANGELOG_BYTES - 40_000; release++) {
    const version = `4.${Math.max(0, 2 - Math.floor(release / 30))}.${(300 - release) % 30}`;
    let text = `<section id="v${release}"><h2>Version ${version}<a class="headerlink" href="#v${release}">¶</a></h2><p>Released ${2026 - Math.floor(release / 40)}-${String((release % 12) + 1).padStart(2, '0')}-${String((release % 27) + 1).padStart(2, '0')}.</p>`;
    for (const kind of ['Features', 'Bug fixes', 'Deprecations']) {
      text += `<h3>${kind}</h3><ul class="simple">`;
      for (let item = 0; item < 8 + Math.floor(next() * 10); item++) {
        const target = pick(next, all);
        const link =
          item % 3 === 0
            ? `<a class="reference internal" href="${relative(page.path, target.path)}">${target.title}</a>`
            : `<em>${target.title}</em>`;
        text += `<li><p>${titleOf(words(next, 1))} ${words(next, 22).join(' ')} (${link}, <code>${pick(next, IDENTIFIERS)}</code>).</p></li>`;
      }
      text += '</ul>';
    }
    text += '</section>';
    parts.push(text);
    size += text.length;
  }
  return frame(page, [page], `<section id="changelog"><h1>Changelog</h1>${parts.join('')}</section>`, []);
}

/** A long list of symbol entries (link and description) until it is `bytes` long: Sphinx's genindex. */
function symbolEntries(
  page: PageRef,
  all: readonly PageRef[],
  bytes: number,
  seed: number,
  withDescription: boolean,
): string {
  const next = random(seed);
  const groups: string[] = [];
  let size = 0;
  for (let letter = 0; size < bytes - 20_000; letter = (letter + 1) % 26) {
    const entries: string[] = [];
    for (let i = 0; i < 300; i++) {
      const target = pick(next, all);
      const symbol = `${pick(next, IDENTIFIERS)}.${pick(next, VOCABULARY)}_${pick(next, VOCABULARY)}`;
      entries.push(
        `<li><a href="${relative(page.path, target.path)}#${symbol}">${symbol}()</a>${withDescription && i % 4 === 0 ? ` (${target.title})` : ''}</li>`,
      );
    }
    const group = `<h2 id="${String.fromCharCode(65 + letter)}${groups.length}">${String.fromCharCode(65 + letter)}</h2><table class="indextable genindextable"><tr><td><ul>${entries.join('')}</ul></td></tr></table>`;
    groups.push(group);
    size += group.length;
  }
  return groups.join('');
}

export interface DocsSite {
  /** Every page by site path (the home page is /index.html). */
  readonly pages: Map<string, Buffer>;
  readonly bytes: number;
  readonly links: number;
}

/** The site, built once (about a second). */
export function docsSite(): DocsSite {
  const sections = catalogue();
  const all = sections.flat();
  const pages = new Map<string, string>();
  const indexes = SECTIONS.map<PageRef>((section) => ({
    section,
    slug: 'index',
    title: titleOf(section.split('-')),
    path: `/docs/${section}/index.html`,
  }));
  sections.forEach((sectionPages, s) => {
    pages.set(indexes[s]!.path, sectionIndex(indexes[s]!, sectionPages, all, 1000 + s));
    sectionPages.forEach((page, p) => pages.set(page.path, articlePage(page, sectionPages, all, s * 100 + p)));
  });
  const special = (slug: string, title: string): PageRef => ({
    section: 'api',
    slug,
    title,
    path: `/docs/${slug}.html`,
  });
  const log = special('changelog', 'Changelog');
  pages.set(log.path, changelog(log, all));
  const genindex = special('genindex', 'Index');
  pages.set(
    genindex.path,
    frame(genindex, [genindex], `<h1>Index</h1>${symbolEntries(genindex, all, GENINDEX_BYTES, 155, true)}`, []),
  );
  const symbols = special('api-symbols', 'All symbols');
  pages.set(
    symbols.path,
    frame(symbols, [symbols], `<h1>All symbols</h1>${symbolEntries(symbols, all, SYMBOLS_BYTES, 70, false)}`, []),
  );
  const home: PageRef = { section: '', slug: 'index', title: 'Ferrous documentation', path: '/index.html' };
  const next = random(1);
  pages.set(
    home.path,
    frame(
      home,
      indexes,
      `<section id="welcome"><h1>Ferrous documentation</h1>${paragraph(next, home.path, all, 2)}<ul>${[
        ...indexes,
        log,
        genindex,
        symbols,
      ]
        .map((p) => `<li><a href="${relative(home.path, p.path)}">${p.title}</a></li>`)
        .join('')}</ul></section>`,
      [],
    ),
  );
  const buffers = new Map<string, Buffer>();
  let bytes = 0;
  let links = 0;
  for (const [path, html] of pages) {
    const buffer = Buffer.from(html);
    buffers.set(path, buffer);
    bytes += buffer.length;
    links += html.split('<a ').length - 1;
  }
  return { pages: buffers, bytes, links };
}
