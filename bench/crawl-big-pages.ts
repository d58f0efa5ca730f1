/**
 * The big pages a documentation site grows, built from the real site's own pages so that their text and markup are
 * real (bench:crawl's `big` site): a changelog of every release's notes in one page (2.5 MB), and two index pages of
 * over 1 MB made of links (every section of every page, as Sphinx's genindex-all and a full table of contents list
 * them). The site's home page links to the three, so a crawl meets them at depth 1, among the first pages it reads.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

export const CHANGELOG_BYTES = 2.5 * 1024 * 1024;
export const INDEX_PAGE_BYTES = 1.1 * 1024 * 1024;

export const BIG_PAGE_PATHS = ['/releases/changelog.html', '/genindex-all.html', '/contents-all.html'] as const;

interface Section {
  readonly href: string;
  readonly heading: string;
  readonly firstSentence: string;
}

/** The pages by path, and the home page with links to them. */
export async function bigPages(root: string): Promise<Map<string, Buffer>> {
  const pages = new Map<string, Buffer>();
  const releases = path.join(root, 'releases');
  const releaseFiles = (await readdir(releases)).filter((file) => /^\d.*\.html$/.test(file)).sort(byVersion);
  const releasesIndex = await readFile(path.join(releases, 'index.html'), 'utf8');
  let notes = '';
  for (const file of releaseFiles) {
    notes += mainContent(await readFile(path.join(releases, file), 'utf8'));
    if (notes.length >= CHANGELOG_BYTES) break;
  }
  pages.set(
    BIG_PAGE_PATHS[0],
    Buffer.from(withMainContent(releasesIndex, notes.slice(0, CHANGELOG_BYTES), 'Changelog')),
  );

  const sections = await allSections(root);
  const genindex = await readFile(path.join(root, 'genindex.html'), 'utf8');
  pages.set(
    BIG_PAGE_PATHS[1],
    Buffer.from(
      withMainContent(genindex, repeatTo(genindexEntries(sections), INDEX_PAGE_BYTES), 'Index of everything'),
    ),
  );
  const contents = await readFile(path.join(root, 'contents.html'), 'utf8');
  pages.set(
    BIG_PAGE_PATHS[2],
    Buffer.from(withMainContent(contents, repeatTo(tableOfContents(sections), INDEX_PAGE_BYTES), 'Every section')),
  );

  const home = await readFile(path.join(root, 'index.html'), 'utf8');
  const links = BIG_PAGE_PATHS.map((href) => `<li><a href="${href}">${href}</a></li>`).join('');
  pages.set('/index.html', Buffer.from(home.replace('</body>', `<ul class="big-pages">${links}</ul></body>`)));
  return pages;
}

/** Release note files in version order (1.10 after 1.9). */
function byVersion(a: string, b: string): number {
  const parts = (file: string) =>
    file
      .replace(/\.html$/, '')
      .split('.')
      .map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const difference = (x[i] ?? -1) - (y[i] ?? -1);
    if (difference !== 0) return difference;
  }
  return 0;
}

const MAIN_START = /<div class="yui-g"[^>]*>/;
const SIDEBAR = '<div class="yui-b" id="sidebar">';
const FOOTER = '<div id="ft">';

/** Where the main column ends (at the sidebar, or the footer on pages without one), and the wrappers open there. */
function mainEnd(html: string): { index: number; closers: string } {
  const sidebar = html.indexOf(SIDEBAR);
  if (sidebar >= 0) return { index: sidebar, closers: '</div></div></div>' };
  return { index: html.indexOf(FOOTER), closers: '</div></div></div></div>' };
}

/** A Sphinx page's article: from its main column to the sidebar, its unclosed wrappers' ends left out. */
function mainContent(html: string): string {
  const start = MAIN_START.exec(html);
  const end = mainEnd(html).index;
  if (!start || end < 0) return '';
  let content = html.slice(start.index + start[0].length, end);
  let open = (content.match(/<div\b/g) ?? []).length - (content.match(/<\/div>/g) ?? []).length;
  while (open < 0) {
    content = content.slice(0, content.lastIndexOf('</div>'));
    open++;
  }
  return content;
}

function withMainContent(template: string, content: string, title: string): string {
  const start = MAIN_START.exec(template);
  const { index: end, closers } = mainEnd(template);
  if (!start || end < 0) throw new Error('not a page of the real site');
  const head = template
    .slice(0, start.index + start[0].length)
    .replace(/<title>[^<]*<\/title>/, `<title>${title}</title>`);
  return `${head}<h1>${title}</h1>${content}${closers}${template.slice(end)}`;
}

/** Every section of every page: its anchor, heading and first sentence. */
async function allSections(root: string): Promise<Section[]> {
  const sections: Section[] = [];
  for (const file of (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.html')).sort()) {
    const html = await readFile(path.join(root, file), 'utf8');
    const href = `/${file.split(path.sep).join('/')}`;
    const pattern =
      /<div class="section" id="s-([^"]+)">\s*(?:<span[^>]*><\/span>)?<h\d>([^<]+)[^]{0,400}?<p>([^<]{0,200})/g;
    for (const match of html.matchAll(pattern)) {
      sections.push({ href: `${href}#${match[1]}`, heading: match[2]!.trim(), firstSentence: match[3]!.trim() });
    }
  }
  return sections;
}

function genindexEntries(sections: readonly Section[]): string {
  return `<table class="indextable genindextable"><tr><td><ul>${sections
    .map((s) => `<li><a href="${s.href}">${s.heading}</a></li>`)
    .join('')}</ul></td></tr></table>`;
}

function tableOfContents(sections: readonly Section[]): string {
  return `<div class="toctree-wrapper compound"><ul>${sections
    .map(
      (s) =>
        `<li class="toctree-l1"><a class="reference internal" href="${s.href}">${s.heading}</a> ${s.firstSentence}</li>`,
    )
    .join('')}</ul></div>`;
}

/** The block repeated (as a longer index would list more) until it is `bytes` long. */
function repeatTo(block: string, bytes: number): string {
  let out = block;
  while (out.length < bytes) out += block;
  return out;
}
