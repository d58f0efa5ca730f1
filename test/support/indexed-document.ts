import type { IndexedDocument } from '../../src/documents/document-index.writer.js';

/** A plain-text page as the document writer takes it (English, no images or structured data, fetched 2026-11-01). */
export function textDocument(url: string, title: string | null, content: string): IndexedDocument {
  return {
    url,
    title,
    content,
    publishedDate: null,
    language: 'en',
    favicon: null,
    images: [],
    structuredData: [],
    fetchedAt: new Date('2026-11-01T00:00:00Z'),
  };
}
