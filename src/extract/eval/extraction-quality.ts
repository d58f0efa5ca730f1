import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Readability } from '@mozilla/readability';
import { parseDocument } from '../html/dom.js';
import { extractHtml } from '../html/html-page.js';
import { type F1, tokenF1 } from './token-f1.js';

export interface PageScore {
  readonly page: string;
  /** Our extractor, text format, basic depth. */
  readonly ours: F1;
  /** Our extractor, markdown (the default format), basic depth. */
  readonly oursMarkdown: F1;
  /** Plain Readability (default options) on the same page: its textContent. */
  readonly readability: F1;
}

/** Plain Readability's text of a page, the baseline. */
export function plainReadabilityText(html: string): string {
  const article = new Readability(parseDocument(html) as never).parse();
  return article?.textContent ?? '';
}

/**
 * Scores every `<name>.html` / `<name>.xhtml` of `dir` that has a hand-written `expected/<name>.txt`: token F1 of our
 * extraction and of plain Readability against the expected main text.
 */
export function scoreDirectory(dir: string, origin = 'https://fixture.example'): PageScore[] {
  return readdirSync(dir)
    .filter((name) => /\.x?html$/.test(name))
    .flatMap((name) => {
      let expected: string;
      try {
        expected = readFileSync(path.join(dir, 'expected', name.replace(/\.x?html$/, '.txt')), 'utf8');
      } catch {
        return [];
      }
      const html = readFileSync(path.join(dir, name), 'utf8').replaceAll('{{origin}}', origin);
      const url = `${origin}/${name}`;
      return [
        {
          page: name,
          ours: tokenF1(extractHtml(html, url, { depth: 'basic', format: 'text' }).content, expected),
          oursMarkdown: tokenF1(extractHtml(html, url, { depth: 'basic', format: 'markdown' }).content, expected),
          readability: tokenF1(plainReadabilityText(html), expected),
        },
      ];
    });
}

export function mean(scores: readonly PageScore[], pick: (score: PageScore) => number): number {
  return scores.length ? scores.reduce((sum, score) => sum + pick(score), 0) / scores.length : 0;
}

export function formatScores(scores: readonly PageScore[]): string {
  const pct = (value: number) => `${(value * 100).toFixed(1)}`.padStart(6);
  const cell = (f: F1) => `${pct(f.precision)} ${pct(f.recall)} ${pct(f.f1)}`;
  const lines = [
    `${'page'.padEnd(24)} | ours (text) P R F1        | ours (markdown) P R F1    | Readability P R F1`,
    ...scores.map((s) => `${s.page.padEnd(24)} | ${cell(s.ours)} | ${cell(s.oursMarkdown)} | ${cell(s.readability)}`),
    `${'mean F1'.padEnd(24)} | ${' '.repeat(14)}${pct(mean(scores, (s) => s.ours.f1))} | ${' '.repeat(14)}${pct(
      mean(scores, (s) => s.oursMarkdown.f1),
    )} | ${' '.repeat(14)}${pct(mean(scores, (s) => s.readability.f1))}`,
  ];
  return lines.join('\n');
}
