import { type JsonRecord, isRecord } from '../../search/upstream/json-shape.js';
import type { ScholarResult } from '../dto/news-jobs-scholar-results.dto.js';
import type { LocalDocument } from './local-documents.js';
import { hasType, meta, metas, nameOf, namesOf, plain, text, urlOf } from './schema-org.js';
import { mergeInto, pageOf, pdfOf, record, sameTitle, set, snippetOf } from './structured-page.js';

const SCHOLARLY_TYPES = set('ScholarlyArticle', 'MedicalScholarlyArticle', 'Thesis');

const DOI = /\b(10\.\d{4,9}\/[^\s"<>]+)/;

export function doiOf(value: string | null): string | null {
  if (!value) return null;
  const match = DOI.exec(decodeURIComponent(value.replace(/%(?![0-9a-f]{2})/gi, '%25')));
  return match ? match[1]!.replace(/[.,;]$/, '') : null;
}

function yearOf(value: unknown): number | null {
  const t = text(value);
  if (!t) return null;
  const match = /\b(1[5-9]\d{2}|2\d{3})\b/.exec(t);
  return match ? Number(match[1]) : null;
}

function venueOf(item: JsonRecord, depth = 0): string | null {
  if (depth > 4) return null;
  const partOf = record(item.isPartOf);
  if (Object.keys(partOf).length === 0) return text(item.isPartOf) ?? nameOf(item.publisher);
  if (hasType(partOf, set('Periodical', 'Journal', 'PublicationVolume', 'PublicationIssue'))) {
    return venueOf(partOf, depth + 1) ?? text(partOf.name);
  }
  return text(partOf.name) ?? nameOf(item.publisher);
}

function doiOfItem(item: JsonRecord): string | null {
  for (const id of [item.identifier, item.sameAs, item['@id'], item.url].flatMap((v) => (Array.isArray(v) ? v : [v]))) {
    if (isRecord(id) && /doi/i.test(text(id.propertyID) ?? '')) return doiOf(text(id.value));
    const doi = doiOf(text(id));
    if (doi) return doi;
  }
  return null;
}

export function scholarOf(doc: LocalDocument): ScholarResult[] {
  const { citation, schema } = pageOf(doc);
  const papers: ScholarResult[] = [];
  const add = (paper: ScholarResult) => {
    const index = papers.findIndex((p) => sameTitle(p.title, paper.title));
    if (index >= 0) papers[index] = mergeInto(papers[index]!, paper);
    else papers.push(paper);
  };
  if (citation && !Object.keys(citation).some((key) => key.startsWith('citation_patent'))) {
    const title = meta(citation, 'citation_title');
    if (title) {
      add({
        title,
        authors: metas(citation, 'citation_author'),
        venue:
          meta(citation, 'citation_journal_title') ??
          meta(citation, 'citation_conference_title') ??
          meta(citation, 'citation_inbook_title') ??
          meta(citation, 'citation_publisher') ??
          meta(citation, 'citation_dissertation_institution') ??
          meta(citation, 'citation_technical_report_institution'),
        year:
          yearOf(meta(citation, 'citation_publication_date')) ??
          yearOf(meta(citation, 'citation_date')) ??
          yearOf(meta(citation, 'citation_online_date')) ??
          yearOf(meta(citation, 'citation_year')),
        doi: doiOf(meta(citation, 'citation_doi')),
        pdf_url: urlOf(meta(citation, 'citation_pdf_url'), doc.url),
        citations: null,
        url:
          urlOf(meta(citation, 'citation_abstract_html_url'), doc.url) ??
          urlOf(meta(citation, 'citation_fulltext_html_url'), doc.url) ??
          doc.url,
        snippet: plain(meta(citation, 'citation_abstract'), 500) ?? snippetOf(doc, 500),
        provider: 'local',
      });
    }
  }
  for (const { item } of schema) {
    if (!hasType(item, SCHOLARLY_TYPES)) continue;
    const title = text(item.headline ?? item.name);
    if (!title) continue;
    add({
      title,
      authors: namesOf(item.author),
      venue: venueOf(item),
      year: yearOf(item.datePublished) ?? yearOf(item.dateCreated),
      doi: doiOfItem(item),
      pdf_url: pdfOf(item, doc.url),
      citations: null,
      url: doc.url,
      snippet: plain(item.abstract ?? item.description, 500) ?? snippetOf(doc, 500),
      provider: 'local',
    });
  }
  return papers;
}
