import type { JsonRecord } from '../../search/upstream/json-shape.js';
import { isoDay } from '../../search/upstream/upstream-text.js';
import type { PatentResult } from '../dto/patents-trends-finance-results.dto.js';
import type { LocalDocument } from './local-documents.js';
import { dateOf, meta, metas, nameOf, namesOf, plain, text, urlOf } from './schema-org.js';
import { mergeInto, pageOf, pdfOf, sameTitle, snippetOf } from './structured-page.js';

const isPatentType = (item: JsonRecord) =>
  (Array.isArray(item['@type']) ? item['@type'] : [item['@type']]).some(
    (t) => typeof t === 'string' && /(^|[#/:])Patent$/.test(t.trim()),
  );

export function patentsOf(doc: LocalDocument): PatentResult[] {
  const { citation, schema } = pageOf(doc);
  const patents: PatentResult[] = [];
  const add = (patent: PatentResult) => {
    const index = patents.findIndex(
      (p) => (p.patent_number && p.patent_number === patent.patent_number) || sameTitle(p.title, patent.title),
    );
    if (index >= 0) patents[index] = mergeInto(patents[index]!, patent);
    else patents.push(patent);
  };
  if (citation && Object.keys(citation).some((key) => key.startsWith('citation_patent'))) {
    const title = meta(citation, 'citation_title') ?? doc.title;
    if (title) {
      const filed =
        meta(citation, 'citation_patent_filing_date') ??
        meta(citation, 'citation_filing_date') ??
        meta(citation, 'citation_patent_application_date');
      const published =
        meta(citation, 'citation_patent_publication_date') ??
        meta(citation, 'citation_publication_date') ??
        meta(citation, 'citation_date');
      const inventors = metas(citation, 'citation_patent_inventor');
      add({
        title,
        patent_number:
          meta(citation, 'citation_patent_number')?.replace(/:/g, '') ??
          meta(citation, 'citation_patent_publication_number') ??
          meta(citation, 'citation_patent_application_number'),
        assignee: meta(citation, 'citation_patent_assignee') ?? meta(citation, 'citation_assignee'),
        inventors:
          inventors.length > 0
            ? inventors
            : [...metas(citation, 'citation_inventor'), ...metas(citation, 'citation_author')],
        filing_date: isoDay(dateOf(filed)),
        publication_date: isoDay(dateOf(published)),
        abstract: plain(meta(citation, 'citation_abstract'), 1000) ?? snippetOf(doc, 500),
        url: doc.url,
        pdf_url: urlOf(meta(citation, 'citation_pdf_url'), doc.url),
        provider: 'local',
      });
    }
  }
  for (const { item } of schema) {
    if (!isPatentType(item)) continue;
    const title = text(item.name ?? item.headline ?? item.title);
    if (!title) continue;
    add({
      title,
      patent_number: text(item.patentNumber ?? item.publicationNumber ?? item.identifier),
      assignee: nameOf(item.assignee ?? item.assigneeOriginal ?? item.assigneeCurrent ?? item.applicant),
      inventors: namesOf(item.inventor ?? item.creator ?? item.author),
      filing_date: isoDay(dateOf(item.filingDate ?? item.dateCreated)),
      publication_date: isoDay(dateOf(item.publicationDate ?? item.datePublished)),
      abstract: plain(item.abstract ?? item.description, 1000),
      url: urlOf(item.url, doc.url) ?? doc.url,
      pdf_url: pdfOf(item, doc.url),
      provider: 'local',
    });
  }
  return patents;
}
