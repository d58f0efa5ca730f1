import type { IndexedDocument } from '../../documents/document-index.writer.js';
import type { BeirDataset } from './beir-dataset.js';

/** A BEIR corpus document as the index stores it: its id under `urlPrefix`, so that a hit's URL names the judged id. */
export function beirIndexedDocument(
  doc: BeirDataset['corpus'][number],
  urlPrefix: string,
  fetchedAt: Date,
): IndexedDocument {
  return {
    url: urlPrefix + encodeURIComponent(doc.id),
    title: doc.title || null,
    content: doc.text,
    publishedDate: null,
    language: 'en',
    favicon: null,
    images: [],
    structuredData: [],
    fetchedAt,
  };
}
