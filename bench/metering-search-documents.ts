import type { IndexedDocument } from '../src/documents/document-index.writer.js';

const TOPICS = ['metering', 'benchmark', 'ledger', 'credits', 'search', 'latency', 'budget', 'allowance'];
const FILLER =
  'Operators measure how a service behaves under load, how its answers are billed and how quickly a charge becomes ' +
  'durable. Each figure is compared with a baseline taken in the same run, so that the machine weighs on both alike.';

/**
 * The local index the budgets' rounds on POST /search read: `count` articles, each naming two of a few topics, so
 * that the benchmark's query ("metering benchmark") matches a share of them and the search ranks real passages.
 */
export function searchDocuments(count: number): IndexedDocument[] {
  const fetchedAt = new Date();
  return Array.from({ length: count }, (_, i) => {
    const a = TOPICS[i % TOPICS.length]!;
    const b = TOPICS[(i * 7 + 3) % TOPICS.length]!;
    return {
      url: `https://bench.example/articles/${i}`,
      title: `On ${a} and ${b}, part ${i}`,
      content: `# On ${a} and ${b}\n\n${FILLER} This part is about ${a}: how ${a} relates to ${b} in practice.\n\n${FILLER}`,
      publishedDate: null,
      language: 'en',
      favicon: null,
      images: [],
      structuredData: [],
      fetchedAt,
    };
  });
}
