/**
 * The readable text of a tool result, in the layout of tavily-mcp's formatResults (compat-reference.md §6), which
 * agents already know: `Answer:`, then `Detailed Results:` with `Title:` / `URL:` / `Content:` / `Raw Content:` /
 * `Favicon:` per result, then `Images:`. The same data is in the result's structuredContent as JSON.
 */

type Body = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function images(lines: string[], value: unknown): void {
  const all = list(value);
  if (all.length === 0) return;
  lines.push('', 'Images:');
  all.forEach((image, i) => {
    if (typeof image === 'string') {
      lines.push(`[${i + 1}] URL: ${image}`);
    } else if (image && typeof image === 'object') {
      const { url, description } = image as { url?: unknown; description?: unknown };
      lines.push(`[${i + 1}] URL: ${String(url)}`);
      if (text(description)) lines.push(`   Description: ${String(description)}`);
    }
  });
}

function usage(lines: string[], body: Body): void {
  const credits = (body.usage as { credits?: unknown } | undefined)?.credits;
  if (typeof credits === 'number') lines.push('', `Credits charged: ${credits}`);
}

export function formatSearch(body: Body): string {
  const lines: string[] = [];
  if (text(body.answer)) lines.push(`Answer: ${String(body.answer)}`, '');
  const results = list(body.results) as Body[];
  if (results.length === 0) {
    lines.push(`No results found for "${String(body.query)}".`);
  } else {
    lines.push('Detailed Results:');
    for (const result of results) {
      lines.push('', `Title: ${String(result.title)}`, `URL: ${String(result.url)}`);
      if (text(result.published_date)) lines.push(`Published: ${String(result.published_date)}`);
      lines.push(`Content: ${String(result.content)}`);
      if (text(result.raw_content)) lines.push(`Raw Content: ${String(result.raw_content)}`);
      if (text(result.favicon)) lines.push(`Favicon: ${String(result.favicon)}`);
      const own = list(result.images);
      if (own.length > 0)
        lines.push(`Images: ${own.map((i) => (typeof i === 'string' ? i : String((i as Body).url))).join(', ')}`);
    }
  }
  images(lines, body.images);
  usage(lines, body);
  return lines.join('\n');
}

export function formatExtract(body: Body): string {
  const lines: string[] = [];
  const results = list(body.results) as Body[];
  const failed = list(body.failed_results) as Body[];
  if (results.length > 0) {
    lines.push('Detailed Results:');
    for (const result of results) {
      lines.push('', `Title: ${text(result.title) ?? '(untitled)'}`, `URL: ${String(result.url)}`);
      lines.push(`Raw Content: ${String(result.raw_content)}`);
      if (text(result.favicon)) lines.push(`Favicon: ${String(result.favicon)}`);
      images(lines, result.images);
    }
  }
  if (failed.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push('Failed URLs:');
    for (const failure of failed) lines.push(`- ${String(failure.url)}: ${String(failure.error)}`);
  }
  if (lines.length === 0) lines.push('Nothing was extracted.');
  usage(lines, body);
  return lines.join('\n');
}

/** Crawl in tavily-mcp's layout: `Crawl Results:`, `Base URL:`, `Crawled Pages:`, each page's content in full. */
export function formatCrawl(body: Body): string {
  const lines = ['Crawl Results:', `Base URL: ${String(body.base_url)}`, '', 'Crawled Pages:'];
  const results = list(body.results) as Body[];
  if (results.length === 0) lines.push('(none)');
  results.forEach((page, i) => {
    lines.push('', `[${i + 1}] URL: ${String(page.url)}`, `Content: ${String(page.raw_content)}`);
    if (text(page.favicon)) lines.push(`Favicon: ${String(page.favicon)}`);
  });
  cutShortLine(lines, body);
  usage(lines, body);
  return lines.join('\n');
}

/** Map in tavily-mcp's layout: `Site Map Results:`, `Base URL:`, `Mapped Pages:`, then `[i] URL: …`. */
export function formatMap(body: Body): string {
  const lines = ['Site Map Results:', `Base URL: ${String(body.base_url)}`, '', 'Mapped Pages:'];
  const results = list(body.results);
  if (results.length === 0) lines.push('(none)');
  results.forEach((url, i) => lines.push(`[${i + 1}] URL: ${String(url)}`));
  cutShortLine(lines, body);
  usage(lines, body);
  return lines.join('\n');
}

/**
 * A research task that completed: its report as written (which lists its sources), or the JSON of a structured
 * result followed by the sources.
 */
export function formatResearch(body: Body): string {
  const content = body.content;
  if (typeof content === 'string') {
    const lines = [content];
    usage(lines, body);
    return lines.join('\n');
  }
  const lines = [JSON.stringify(content, null, 2)];
  const sources = list(body.sources) as Body[];
  if (sources.length > 0) {
    lines.push('', 'Sources:');
    sources.forEach((source, i) => lines.push(`[${i + 1}] ${String(source.title)}: ${String(source.url)}`));
  }
  usage(lines, body);
  return lines.join('\n');
}

function cutShortLine(lines: string[], body: Body): void {
  const cut = body.cut_short as { by?: unknown; pages_left?: unknown } | undefined;
  if (cut) lines.push('', `Cut short by its ${String(cut.by)}: ${String(cut.pages_left)} pages left unvisited.`);
}
