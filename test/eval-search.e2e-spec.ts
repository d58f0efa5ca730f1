import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { parseArgs, runEvaluation } from '../src/search/eval/evaluate-search.js';
import { TEST_DATABASE_URL } from './support/test-database.js';

/** `npm run eval:search` on a small BEIR-layout folder, against the test database (services mode). */
describe('eval:search', () => {
  let dir: string;

  const corpus = [
    {
      _id: 'whales',
      title: 'Humpback whale songs',
      text: 'Male humpback whales sing long songs during the breeding season.',
    },
    { _id: 'volcano', title: 'Volcanic eruptions', text: 'Magma rises through the crust and erupts as lava and ash.' },
    {
      _id: 'bread',
      title: 'Sourdough bread',
      text: 'A sourdough starter of wild yeast and lactobacilli leavens the bread.',
    },
    { _id: 'tides', title: 'Ocean tides', text: 'The gravity of the moon and the sun raises the tides of the ocean.' },
    {
      _id: 'bees',
      title: 'Honey bee dances',
      text: 'Foraging honey bees dance to tell the hive where the flowers are.',
    },
  ];
  const queries = [
    { _id: 'q1', text: 'why do humpback whales sing songs in the breeding season' },
    { _id: 'q2', text: 'how does the moon raise ocean tides' },
    { _id: 'q3', text: 'wild yeast in a sourdough starter' },
    { _id: 'unjudged', text: 'bees' },
  ];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'eval-search-spec-'));
    await mkdir(path.join(dir, 'qrels'));
    const lines = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    await writeFile(path.join(dir, 'corpus.jsonl'), lines(corpus));
    await writeFile(path.join(dir, 'queries.jsonl'), lines(queries));
    await writeFile(
      path.join(dir, 'qrels', 'test.tsv'),
      'query-id\tcorpus-id\tscore\nq1\twhales\t1\nq2\ttides\t1\nq3\tbread\t1\n',
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('indexes the corpus, scores the judged queries at both depths, writes the run and drops its schema', async () => {
    const runFile = path.join(dir, 'run.txt');
    const printed: string[] = [];
    const results = await runEvaluation(parseArgs([dir, '--run', runFile]), {
      databaseUrl: TEST_DATABASE_URL,
      out: (line = '') => printed.push(line),
    });
    expect(results.map((r) => r.depth)).toEqual(['basic', 'advanced']);
    for (const result of results) {
      expect(result).toMatchObject({ ndcg10: 1, recall100: 1, mrr10: 1 });
      expect(result.p50Ms).toBeGreaterThan(0);
    }
    expect(printed[0]).toMatch(
      /5 documents indexed in .* s \(services mode, schema eval_search_\w+\), 3 judged queries/,
    );
    expect(printed).toContain('| depth    | nDCG@10 | recall@100 | MRR@10 | p50 ms | p99 ms |');

    const run = (await readFile(runFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(' '));
    for (const depth of ['basic', 'advanced']) {
      const q1 = run.filter(([query, , , , , tag]) => query === 'q1' && tag === depth);
      expect(q1[0]?.slice(0, 4)).toEqual(['q1', 'Q0', 'whales', '1']);
      expect(q1.map((line) => Number(line[3]))).toEqual(q1.map((_, i) => i + 1));
      const scores = q1.map((line) => Number(line[4]));
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    }
    expect(run.some(([query]) => query === 'unjudged')).toBe(false);

    const schema = /schema (eval_search_\w+)/.exec(printed[0]!)![1];
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const left = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      expect(left.rowCount).toBe(0);
    } finally {
      await client.end();
    }
  }, 60_000);

  test('refuses unknown arguments and a --run without a file', () => {
    expect(() => parseArgs([dir, '--bogus'])).toThrow('unknown argument: --bogus');
    expect(() => parseArgs([dir, '--run'])).toThrow('--run takes a file name');
    expect(parseArgs([dir, '--depth', 'basic', '--queries', '2'])).toEqual({
      dir,
      depths: ['basic'],
      queries: 2,
      run: null,
    });
  });
});
