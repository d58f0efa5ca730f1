import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Judgments } from './retrieval-metrics.js';

/**
 * A retrieval test collection in the BEIR layout: `corpus.jsonl` (`{"_id", "title", "text"}`), `queries.jsonl`
 * (`{"_id", "text"}`) and `qrels/*.tsv` (`query-id corpus-id score`, with a header line).
 */
export interface BeirDataset {
  readonly corpus: readonly { id: string; title: string; text: string }[];
  /** Only the queries that have judgments, in file order. */
  readonly queries: readonly { id: string; text: string }[];
  readonly qrels: ReadonlyMap<string, Judgments>;
}

function jsonLines(text: string, file: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line.length > 0)
    .map(([line, n]) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`${file}:${n}: not a JSON object`);
      }
    });
}

const idOf = (record: Record<string, unknown>) => String(record._id ?? '');

export async function readBeirDataset(dir: string): Promise<BeirDataset> {
  const corpusFile = path.join(dir, 'corpus.jsonl');
  const queriesFile = path.join(dir, 'queries.jsonl');
  const corpus = jsonLines(await readFile(corpusFile, 'utf8'), corpusFile).map((r) => ({
    id: idOf(r),
    title: typeof r.title === 'string' ? r.title : '',
    text: typeof r.text === 'string' ? r.text : '',
  }));
  const qrelsDir = path.join(dir, 'qrels');
  const qrelFiles = (await readdir(qrelsDir)).filter((f) => f.endsWith('.tsv')).sort();
  if (qrelFiles.length === 0) throw new Error(`${qrelsDir}: no .tsv judgments`);
  const qrels = new Map<string, Map<string, number>>();
  for (const file of qrelFiles) {
    const lines = (await readFile(path.join(qrelsDir, file), 'utf8')).split('\n');
    for (const line of lines) {
      const [query, doc, score] = line.trim().split(/\t| +/);
      if (!query || !doc || score === undefined || !/^-?\d+(\.\d+)?$/.test(score)) continue; // the header, blanks
      const judged = qrels.get(query) ?? new Map<string, number>();
      judged.set(doc, Number(score));
      qrels.set(query, judged);
    }
  }
  const queries = jsonLines(await readFile(queriesFile, 'utf8'), queriesFile)
    .map((r) => ({ id: idOf(r), text: typeof r.text === 'string' ? r.text : '' }))
    .filter((q) => [...(qrels.get(q.id)?.values() ?? [])].some((gain) => gain > 0));
  return { corpus, queries, qrels };
}
