import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type BeirDataset, readBeirDataset } from '../../src/search/eval/beir-dataset.js';
import { type ArticleLink, articlePage, siteStyle, visibleText } from './article-page.js';
import { prng, seedOf } from './seeded-random.js';

/**
 * SciFact (../shared/data/scifact-train) as a web: every abstract is an article page on one of the loopback hosts,
 * at `/articles/<doc id>-<title slug>`; a claim's evidence is the rationale sentences of its relevant abstracts
 * (queries.jsonl `metadata`, resolved through sentences.jsonl).
 */
export interface Abstract {
  readonly id: string;
  readonly title: string;
  readonly sentences: readonly string[];
}

export interface Claim {
  readonly id: string;
  readonly text: string;
  /** Relevant abstract id → the sentences of its rationales (empty for "not enough info" claims). */
  readonly evidence: ReadonlyMap<string, readonly string[]>;
}

export interface SciFactData {
  readonly abstracts: readonly Abstract[];
  readonly claims: readonly Claim[];
  readonly qrels: BeirDataset['qrels'];
}

export function findSciFact(start = process.cwd()): string | null {
  if (process.env.BENCH_WEB_DATA) return path.resolve(process.env.BENCH_WEB_DATA);
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'data', 'scifact-train');
    if (existsSync(path.join(candidate, 'sentences.jsonl'))) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);

export async function readSciFact(dir: string): Promise<SciFactData> {
  const dataset = await readBeirDataset(dir);
  const sentences = new Map<string, string[]>();
  for (const row of jsonLines(await readFile(path.join(dir, 'sentences.jsonl'), 'utf8'))) {
    sentences.set(String(row._id), row.sentences as string[]);
  }
  const abstracts = dataset.corpus.map((doc) => ({
    id: doc.id,
    title: doc.title,
    sentences: sentences.get(doc.id) ?? [doc.text],
  }));
  const metadata = new Map<string, Record<string, { sentences: number[] }[]>>();
  for (const row of jsonLines(await readFile(path.join(dir, 'queries.jsonl'), 'utf8'))) {
    metadata.set(String(row._id), (row.metadata ?? {}) as Record<string, { sentences: number[] }[]>);
  }
  const claims = dataset.queries.map((query) => {
    const evidence = new Map<string, string[]>();
    for (const [docId, rationales] of Object.entries(metadata.get(query.id) ?? {})) {
      const all = sentences.get(docId) ?? [];
      const indices = [...new Set(rationales.flatMap((rationale) => rationale.sentences))].sort((a, b) => a - b);
      evidence.set(
        docId,
        indices.map((i) => all[i]).filter((s): s is string => s !== undefined),
      );
    }
    return { id: query.id, text: query.text, evidence };
  });
  return { abstracts, claims, qrels: dataset.qrels };
}

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60)
    .replace(/-$/, '');

/** The abstract id in an article URL's path, or null. */
export function abstractIdOf(url: string): string | null {
  try {
    return /^\/articles\/(\d+)-/.exec(new URL(url).pathname)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** The abstracts placed on `hosts` (by a hash of their id), each page built once when first asked. */
export class SciFactWeb {
  private readonly byId = new Map<string, Abstract>();
  private readonly byPath = new Map<string, Abstract>();
  private readonly onHost = new Map<string, Abstract[]>();
  private readonly pages = new Map<string, string>();

  constructor(
    readonly data: SciFactData,
    readonly hosts: readonly string[],
    private readonly seed = 25,
  ) {
    for (const abstract of data.abstracts) {
      this.byId.set(abstract.id, abstract);
      this.byPath.set(this.pathOf(abstract.id), abstract);
      const host = this.hostOf(abstract.id);
      this.onHost.set(host, [...(this.onHost.get(host) ?? []), abstract]);
    }
  }

  abstract(id: string): Abstract | undefined {
    return this.byId.get(id);
  }

  hostOf(id: string): string {
    return this.hosts[seedOf(this.seed, `host-${id}`) % this.hosts.length]!;
  }

  pathOf(id: string): string {
    return `/articles/${id}-${slug(this.byId.get(id)?.title ?? 'article')}`;
  }

  /** The page at this host and path (null when no abstract lives there). */
  page(host: string, pathname: string): string | null {
    const abstract = this.byPath.get(pathname);
    if (!abstract || this.hostOf(abstract.id) !== host) return null;
    const cached = this.pages.get(pathname);
    if (cached) return cached;
    const neighbours = this.onHost.get(host)!;
    const random = prng(seedOf(this.seed, `related-${abstract.id}`));
    const related: ArticleLink[] = [];
    for (let i = 0; i < 9 && neighbours.length > 1; i++) {
      const other = neighbours[Math.floor(random() * neighbours.length)]!;
      if (other.id !== abstract.id && !related.some((link) => link.href === this.pathOf(other.id)))
        related.push({ href: this.pathOf(other.id), title: other.title });
    }
    const html = articlePage(abstract, siteStyle(this.hosts.indexOf(host), this.seed), {
      path: pathname,
      related,
      seed: this.seed,
    });
    this.pages.set(pathname, html);
    return html;
  }

  /** What a search engine would show as the snippet: the page's first `length` characters of visible text. */
  snippet(id: string, length = 160): string {
    const host = this.hostOf(id);
    const text = visibleText(this.page(host, this.pathOf(id)) ?? '');
    return text.length <= length ? text : `${text.slice(0, length).trimEnd()}…`;
  }
}
