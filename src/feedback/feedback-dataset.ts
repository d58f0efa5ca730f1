import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../database/database.js';
import { FeedbackRepository } from './feedback.repository.js';

export interface FeedbackDatasetReport {
  readonly feedback: number;
  readonly queries: number;
  readonly judgments: number;
  readonly documents: number;
  /** Judged pages the local index does not hold: judged, but not in corpus.jsonl. */
  readonly notIndexed: number;
}

/** A query's id in the dataset: the same text (case and spacing aside) is one query, whatever request asked it. */
function queryId(text: string): string {
  return `q${createHash('sha256').update(normalized(text)).digest('hex').slice(0, 16)}`;
}

const normalized = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
const jsonLines = (records: readonly object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

/**
 * An organization's feedback as a judged query set in the BEIR layout that `npm run eval:search` reads:
 * `queries.jsonl` (each query judged), `qrels/feedback.tsv` (query, page URL, gain; a page judged twice for one query
 * keeps its latest gain) and `corpus.jsonl` (the judged pages the local index holds, with their indexed text).
 */
export async function exportFeedbackDataset(
  db: Database,
  orgId: string,
  dir: string,
  since: Date | null,
): Promise<FeedbackDatasetReport> {
  const stored = await new FeedbackRepository(db).judged(orgId, since);
  const queries = new Map<string, string>();
  const qrels = new Map<string, Map<string, number>>();
  for (const feedback of stored) {
    for (const judgment of feedback.judgments) {
      const id = queryId(judgment.query);
      if (!queries.has(id)) queries.set(id, judgment.query);
      const judged = qrels.get(id) ?? new Map<string, number>();
      judged.set(judgment.url, judgment.gain);
      qrels.set(id, judged);
    }
  }
  const urls = [...new Set([...qrels.values()].flatMap((judged) => [...judged.keys()]))];
  const { rows } = await db.query<{ url: string; title: string | null; content: string }>(
    'SELECT url, title, content FROM documents WHERE url = ANY($1::text[]) ORDER BY url',
    [urls],
  );
  const qrelLines = [...qrels].flatMap(([id, judged]) => [...judged].map(([url, gain]) => `${id}\t${url}\t${gain}\n`));
  await mkdir(path.join(dir, 'qrels'), { recursive: true });
  await writeFile(
    path.join(dir, 'corpus.jsonl'),
    jsonLines(rows.map((r) => ({ _id: r.url, title: r.title ?? '', text: r.content }))),
  );
  await writeFile(path.join(dir, 'queries.jsonl'), jsonLines([...queries].map(([_id, text]) => ({ _id, text }))));
  await writeFile(path.join(dir, 'qrels', 'feedback.tsv'), `query-id\tcorpus-id\tscore\n${qrelLines.join('')}`);
  return {
    feedback: stored.length,
    queries: queries.size,
    judgments: qrelLines.length,
    documents: rows.length,
    notIndexed: urls.length - rows.length,
  };
}
