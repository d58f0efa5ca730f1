export const CITATION_FORMATS = ['numbered', 'mla', 'apa', 'chicago'] as const;
export type CitationFormat = (typeof CITATION_FORMATS)[number];

/** A source as a report cites it. */
export interface CitedSource {
  readonly title: string;
  readonly url: string;
}

/** The site a URL is on, as a reference names it (`www.` dropped). */
export function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

const titleOf = (source: CitedSource) => source.title.trim() || siteOf(source.url);

/**
 * The in-text marker of source `n` (1-based): `[n]` for numbered; for the author-date and author-title styles,
 * which have no author or date to go on for a web page, the site (APA, with n.d.) or the title (MLA, Chicago),
 * each linked to the source so that every claim can be followed.
 */
export function inTextCitation(format: CitationFormat, n: number, source: CitedSource): string {
  switch (format) {
    case 'numbered':
      return `[${n}]`;
    case 'apa':
      return `([${siteOf(source.url)}, n.d.](${source.url}))`;
    case 'mla':
      return `([“${titleOf(source)}”](${source.url}))`;
    case 'chicago':
      return `([${siteOf(source.url)}, “${titleOf(source)}”](${source.url}))`;
  }
}

/** The entry of source `n` in the report's list of sources. */
export function referenceEntry(format: CitationFormat, n: number, source: CitedSource): string {
  const title = titleOf(source);
  const site = siteOf(source.url);
  switch (format) {
    case 'numbered':
      return `${n}. [${title}](${source.url})`;
    case 'apa':
      return `- ${title}. (n.d.). *${site}*. ${source.url}`;
    case 'mla':
      return `- “${title}.” *${site}*, ${source.url}.`;
    case 'chicago':
      return `- ${site}. “${title}.” ${source.url}.`;
  }
}

/** The report's closing section: every source it cites, in citation order. */
export function sourcesSection(format: CitationFormat, sources: readonly CitedSource[]): string {
  const heading = format === 'numbered' ? '## Sources' : format === 'apa' ? '## References' : '## Works Cited';
  return [heading, '', ...sources.map((source, i) => referenceEntry(format, i + 1, source))].join('\n');
}
