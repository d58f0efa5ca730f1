/**
 * Main-content extraction on an article-extraction benchmark folder (default ../shared/data/article-extraction-dev,
 * the Zyte/scrapinghub benchmark's development split): token-shingle F1, precision and recall (the benchmark's own
 * metric) and milliseconds per page, of our extractor and of Mozilla Readability on the same parse library, in
 * one run, against the goals of issues 14 and 27. Every score is also given for each half of the pages by id
 * parity, and each threshold of the extractor is cross-checked (tuned on one half, scored on the other). Writes a
 * results JSON to bench/results/.
 *
 *   npm run eval:extraction [-- <folder>] [-- --pages] [-- --quick] [-- --audit]
 *
 * --pages prints every page's scores; --quick (while working on the extractor) runs ours alone and
 * records nothing; --audit also switches each class/id word and link rule off in turn and prints what each
 * half loses.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BenchmarkFolderError,
  type BenchmarkPage,
  type ExtractorRun,
  loadBenchmark,
  ourExtractor,
  readabilityExtractor,
  runExtractor,
} from './article-benchmark.js';
import { HALVES, type HalfScore, halfScores } from './benchmark-halves.js';
import { auditRules } from './rule-audit.js';
import { pagePrecision, pageRecall } from './shingle-f1.js';
import { THRESHOLD_SWEEPS, crossCheck } from './tuning-cross-check.js';

const GOAL_F1 = 0.975;
const GOAL_MS = 15;

const args = process.argv.slice(2);
const perPage = args.includes('--pages');
const quick = args.includes('--quick');
const audit = args.includes('--audit');
// The repository's root, from dist/src/extract/eval/ (compiled) where this runs.
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = path.resolve(
  args.find((arg) => !arg.startsWith('--')) ?? path.join(repoRoot, '../shared/data/article-extraction-dev'),
);

let pages: BenchmarkPage[];
try {
  pages = loadBenchmark(dir);
} catch (error) {
  if (!(error instanceof BenchmarkFolderError)) throw error;
  console.error(`eval:extraction: ${error.message}`);
  console.error('Usage: npm run eval:extraction -- <folder with ground-truth.json and html/<id>.html.gz>');
  process.exit(2);
}

const f3 = (value: number) => value.toFixed(3);
const f4 = (value: number) => value.toFixed(4);
const ms = (value: number) => value.toFixed(1);
const halvesLine = (halves: Record<'even' | 'odd', HalfScore>) =>
  HALVES.map(
    (half) =>
      `${half} ids (${halves[half].pages}): F1 ${f4(halves[half].f1)}  P ${f4(halves[half].precision)}  R ${f4(halves[half].recall)}`,
  ).join('   ');

console.log(`${pages.length} pages from ${dir}`);
const ours = runExtractor('ours (basic, text)', ourExtractor, pages, quick ? 1 : 3);
const oursHalves = halfScores(ours.pages);
if (quick) {
  console.log(
    `F1 ${f4(ours.f1)}  P ${f4(ours.precision)}  R ${f4(ours.recall)}  median ${ms(ours.medianMs)} ms (one pass)`,
  );
  console.log(halvesLine(oursHalves));
  if (audit) printAudit();
  process.exit(0);
}
const readability = runExtractor('Mozilla Readability (linkedom)', readabilityExtractor, pages);
const readabilityHalves = halfScores(readability.pages);
const row = (run: ExtractorRun) =>
  `| ${run.name.padEnd(31)} | ${f3(run.f1)} | ${f3(run.precision)} | ${f3(run.recall)} | ${ms(run.medianMs).padStart(9)} | ${ms(run.meanMs).padStart(7)} | ${ms(run.maxMs).padStart(7)} |`;
console.log('');
console.log(`| ${'extractor'.padEnd(31)} | F1    | P     | R     | median ms | mean ms | max ms  |`);
console.log(`|${'-'.repeat(33)}|-------|-------|-------|-----------|---------|---------|`);
console.log(row(ours));
console.log(row(readability));
console.log(`\nours by page-id parity:        ${halvesLine(oursHalves)}`);
console.log(`Readability by page-id parity: ${halvesLine(readabilityHalves)}`);

// Two-fold cross-check: each threshold tuned on one half and scored on the other.
const sweeps = THRESHOLD_SWEEPS.map((sweep) => crossCheck(pages, sweep));
console.log('\nthresholds, two-fold (best value on one half, scored on the other, against the default there):');
for (const sweep of sweeps) {
  const values = sweep.values.map((v) => `${v.value}: ${f4(v.halves.even.f1)}/${f4(v.halves.odd.f1)}`).join('  ');
  console.log(`  ${sweep.name} (default ${sweep.defaultValue}; F1 even/odd)  ${values}`);
  for (const fold of sweep.folds)
    console.log(
      `    tuned on ${fold.tunedOn}: ${fold.picked}, on the other half ${f4(fold.pickedOnOther)} (default ${f4(fold.defaultOnOther)})`,
    );
}
const auditResult = audit ? printAudit() : null;

function printAudit() {
  console.log('\nrules switched off one at a time (F1 lost on the even / odd half; positive: the rule helps):');
  return auditRules(pages, (effect) =>
    console.log(
      `  ${effect.rule.padEnd(36)} ${f4(effect.loss.even).padStart(8)} ${f4(effect.loss.odd).padStart(8)}  ${effect.verdict}`,
    ),
  );
}

if (perPage) {
  console.log(
    '\npage                                                              |  ours P   R    | Readability P   R',
  );
  ours.pages.forEach((page, i) => {
    const other = readability.pages[i]!;
    console.log(
      `${page.id.padEnd(65)} | ${f3(pagePrecision(page.counts))} ${f3(pageRecall(page.counts))} | ${f3(pagePrecision(other.counts))} ${f3(pageRecall(other.counts))} | ${ms(page.ms)} ms`,
    );
  });
}

const goals = [
  { goal: `F1 >= ${GOAL_F1}`, value: ours.f1, met: ours.f1 >= GOAL_F1 },
  { goal: `median <= ${GOAL_MS} ms/page`, value: ours.medianMs, met: ours.medianMs <= GOAL_MS },
];
console.log('');
for (const goal of goals)
  console.log(
    `goal ${goal.goal}: ${goal.goal.startsWith('F1') ? f3(goal.value) : `${ms(goal.value)} ms`} ${goal.met ? 'met' : 'MISSED'}`,
  );
console.log(
  `vs Readability: F1 ${ours.f1 >= readability.f1 ? '+' : ''}${f3(ours.f1 - readability.f1)}, ${(readability.medianMs / ours.medianMs).toFixed(2)}× its speed (median)`,
);

const startedAt = new Date();
const summary = (run: ExtractorRun) => ({
  name: run.name,
  f1: run.f1,
  precision: run.precision,
  recall: run.recall,
  medianMs: run.medianMs,
  meanMs: run.meanMs,
  p90Ms: run.p90Ms,
  maxMs: run.maxMs,
});
const result = {
  bench: 'extraction',
  startedAt: startedAt.toISOString(),
  dataset: { dir, pages: pages.length },
  metric:
    'token-shingle (4) F1 of the Zyte article-extraction benchmark; ms = CPU time per page (fastest of 3 passes), one extraction at a time',
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    loadAverageAtEnd: os.loadavg().map((l) => Math.round(l * 100) / 100),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  },
  extractors: [summary(ours), summary(readability)],
  halves: { ours: oursHalves, readability: readabilityHalves },
  crossCheck: sweeps.map(({ name, defaultValue, values, folds }) => ({
    name,
    defaultValue,
    values: values.map((v) => ({ value: v.value, even: v.halves.even.f1, odd: v.halves.odd.f1 })),
    folds,
  })),
  ...(auditResult ? { audit: auditResult } : {}),
  goals,
  pages: ours.pages.map((page, i) => ({
    id: page.id,
    ours: { precision: pagePrecision(page.counts), recall: pageRecall(page.counts), ms: page.ms },
    readability: {
      precision: pagePrecision(readability.pages[i]!.counts),
      recall: pageRecall(readability.pages[i]!.counts),
      ms: readability.pages[i]!.ms,
    },
  })),
};
const resultsDir = path.join(repoRoot, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const file = path.join(resultsDir, `extraction-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
