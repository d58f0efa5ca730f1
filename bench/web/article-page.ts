import { prng, seedOf, shuffled } from './seeded-random.js';
import { stripTags } from '../../src/common/linear-text.js';

/**
 * An ordinary article page around an abstract: site header and navigation, sometimes a cookie banner and a
 * breadcrumb, the title as <title> and <h1>, a byline, the sentences in paragraphs of two to four, related links,
 * a "most read" aside and a footer. What surrounds the article depends on the host (each host is one site with
 * one template), so some pages open with a lot of boilerplate and a few with the article itself.
 */
export interface Article {
  readonly title: string;
  readonly sentences: readonly string[];
}

export interface ArticleLink {
  readonly href: string;
  readonly title: string;
}

export interface SiteStyle {
  readonly name: string;
  readonly cookieBanner: boolean;
  readonly breadcrumb: boolean;
  /** Navigation before the article: full, short, or none (the page opens with the article). */
  readonly nav: 'full' | 'short' | 'none';
}

const SITE_WORDS = [
  ['Clinical', 'Research', 'Medical', 'Science', 'Health', 'Biomedical', 'Lab', 'Cell', 'Open', 'Evidence'],
  ['Digest', 'Review', 'Notes', 'Journal', 'Wire', 'Times', 'Report', 'Today', 'Bulletin', 'Monitor'],
];
const SECTIONS = ['News', 'Research', 'Medicine', 'Biology', 'Genetics', 'Public health', 'Opinion', 'Podcasts'];
const AUTHORS = ['A. Moreau', 'J. Okafor', 'L. Chen', 'M. Rossi', 'S. Patel', 'K. Novak', 'R. Silva', 'E. Larsen'];

/** The style of the i-th host (deterministic): about 1 in 8 hosts opens with the article. */
export function siteStyle(index: number, seed = 25): SiteStyle {
  const random = prng(seedOf(seed, `site-${index}`));
  const name = `${SITE_WORDS[0]![index % 10]!} ${SITE_WORDS[1]![Math.floor(index / 10) % 10]!}`;
  const draw = random();
  return {
    name,
    cookieBanner: random() < 0.5,
    breadcrumb: random() < 0.6,
    nav: draw < 0.125 ? 'none' : draw < 0.45 ? 'short' : 'full',
  };
}

export const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Sentences grouped in paragraphs of 2 to 4. */
function paragraphs(sentences: readonly string[], random: () => number): string[][] {
  const groups: string[][] = [];
  for (let i = 0; i < sentences.length;) {
    const size = 2 + Math.floor(random() * 3);
    groups.push(sentences.slice(i, i + size) as string[]);
    i += size;
  }
  return groups;
}

export function articlePage(
  article: Article,
  style: SiteStyle,
  options: { path: string; related: readonly ArticleLink[]; seed?: number },
): string {
  const random = prng(seedOf(options.seed ?? 25, options.path));
  const section = SECTIONS[Math.floor(random() * SECTIONS.length)]!;
  const author = AUTHORS[Math.floor(random() * AUTHORS.length)]!;
  const day = 1 + Math.floor(random() * 28);
  const month = 1 + Math.floor(random() * 12);
  const minutes = 2 + Math.floor(article.sentences.length / 3);
  const title = escapeHtml(article.title);
  const link = ({ href, title: text }: ArticleLink) => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></li>`;
  const nav =
    style.nav === 'none'
      ? ''
      : `<header class="site-header"><a class="logo" href="/">${style.name}</a>
<nav aria-label="Main"><ul>${(style.nav === 'full' ? SECTIONS : SECTIONS.slice(0, 3))
          .map((s) => `<li><a href="/section/${s.toLowerCase().replace(/ /g, '-')}">${s}</a></li>`)
          .join('')}<li><a href="/subscribe">Subscribe</a></li></ul></nav>
<form role="search" action="/search"><input name="q" placeholder="Search ${style.name}"><button>Search</button></form></header>`;
  const cookie = style.cookieBanner
    ? `<div class="cookie-banner" role="dialog"><p>We use cookies to improve your experience and to measure our audience. ` +
      `By continuing to browse ${style.name}, you accept our use of cookies.</p><button>Accept</button> <button>Manage cookies</button></div>`
    : '';
  const breadcrumb = style.breadcrumb
    ? `<nav class="breadcrumb" aria-label="Breadcrumb"><a href="/">Home</a> › <a href="/section/${section.toLowerCase().replace(/ /g, '-')}">${section}</a> › Article</nav>`
    : '';
  const body = paragraphs(article.sentences, random)
    .map((group) => `<p>${group.map(escapeHtml).join(' ')}</p>`)
    .join('\n');
  const related = options.related.slice(0, 5);
  const mostRead = shuffled(options.related, random).slice(0, 4);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | ${style.name}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css"></head>
<body>
${cookie}
${nav}
${breadcrumb}
<main><article>
<h1>${title}</h1>
<p class="byline">By ${author} · ${String(day).padStart(2, '0')}/${String(month).padStart(2, '0')}/2025 · ${minutes} min read</p>
${body}
<section class="related"><h2>Related articles</h2><ul>${related.map(link).join('')}</ul></section>
<div class="share">Share this article: <a href="/share/email">Email</a> <a href="/share/x">X</a> <a href="/share/linkedin">LinkedIn</a></div>
</article>
<aside class="most-read"><h2>Most read</h2><ol>${mostRead.map(link).join('')}</ol></aside></main>
<footer class="site-footer"><nav><a href="/about">About us</a> · <a href="/contact">Contact</a> · <a href="/privacy">Privacy policy</a> · <a href="/terms">Terms of use</a></nav>
<p>Get the week's most important science news in your inbox. <a href="/newsletter">Sign up for the newsletter</a>.</p>
<p>© 2025 ${style.name}. All rights reserved.</p></footer>
</body></html>
`;
}

/** The page's visible text, in document order (tags dropped, the head and scripts skipped), whitespace collapsed. */
export function visibleText(html: string): string {
  const body = html.slice(Math.max(0, html.indexOf('<body')));
  return stripTags(body, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
