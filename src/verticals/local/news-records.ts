import type { NewsResult } from '../dto/news-jobs-scholar-results.dto.js';
import type { LocalDocument } from './local-documents.js';
import { dateOf, hasType, nameOf, plain, text, urlOf } from './schema-org.js';
import { ogValue, pageOf, set, snippetOf } from './structured-page.js';

const NEWS_TYPES = set(
  'NewsArticle',
  'ReportageNewsArticle',
  'AnalysisNewsArticle',
  'OpinionNewsArticle',
  'ReviewNewsArticle',
  'BackgroundNewsArticle',
  'AskPublicNewsArticle',
  'SatiricalArticle',
  'Article',
  'BlogPosting',
  'LiveBlogPosting',
);

export function newsOf(doc: LocalDocument): NewsResult[] {
  const { og, schema } = pageOf(doc);
  const siteName = ogValue(og, 'og:site_name');
  const news: NewsResult[] = [];
  for (const { item } of schema) {
    if (!hasType(item, NEWS_TYPES)) continue;
    const title = text(item.headline ?? item.name) ?? ogValue(og, 'og:title') ?? doc.title;
    if (!title) continue;
    const published = dateOf(item.datePublished) ?? dateOf(item.dateCreated) ?? doc.publishedDate;
    news.push({
      title,
      url: urlOf(item.url, doc.url) ?? urlOf(item.mainEntityOfPage, doc.url) ?? doc.url,
      source: nameOf(item.publisher) ?? siteName ?? doc.domain,
      published_date: published ? published.toISOString() : null,
      snippet: plain(item.description, 300) ?? ogValue(og, 'og:description') ?? snippetOf(doc),
      image: urlOf(item.image, doc.url) ?? urlOf(ogValue(og, 'og:image'), doc.url),
      provider: 'local',
    });
  }
  if (news.length === 0 && og && ogValue(og, 'og:type')?.toLowerCase() === 'article') {
    const title = ogValue(og, 'og:title') ?? doc.title;
    const published = dateOf(ogValue(og, 'article:published_time')) ?? doc.publishedDate;
    if (title) {
      news.push({
        title,
        url: urlOf(ogValue(og, 'og:url'), doc.url) ?? doc.url,
        source: siteName ?? doc.domain,
        published_date: published ? published.toISOString() : null,
        snippet: ogValue(og, 'og:description') ?? snippetOf(doc),
        image: urlOf(ogValue(og, 'og:image'), doc.url),
        provider: 'local',
      });
    }
  }
  return news;
}
