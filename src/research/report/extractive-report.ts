import { markdownToText } from '../../search/text/markdown-text.js';
import { proseSentences } from '../../search/text/sentences.js';
import { words } from '../../search/text/words.js';
import type { ResearchJob } from '../jobs/research-job.js';
import { inTextCitation, sourcesSection } from './citations.js';
import { quotesPerSection, quotesPerSource } from './output-length.js';
import type { ReadSource } from './read-source.js';

const MAX_SENTENCE_CHARS = 600;
const MAX_TEXT_PER_SOURCE = 50_000;

const STOPWORDS = new Set(
  (
    'a an the and or but of in on at to for from by with about into over under is are was were be been being do does ' +
    'did has have had how what when where which who whom why whose it its this that these those there their they ' +
    'them as than then so such can could should would will may might must i you we he she his her our your my me ' +
    'not no yes if also more most much many some any each other vs versus compared between'
  ).split(' '),
);

/** A question's content words, stemmed crudely (a plural's trailing `s` dropped) for matching. */
export function contentTerms(text: string): string[] {
  return [
    ...new Set(
      words(text)
        .map((w) => stem(w.word))
        .filter((w) => w.length > 1 && !STOPWORDS.has(w)),
    ),
  ];
}

const stem = (word: string) =>
  word.length > 4 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;

export interface ReportSection {
  readonly heading: string;
  readonly markdown: string;
}

export interface Quote {
  readonly sentence: string;
  readonly source: ReadSource;
}

/** A report and the sources it cites, numbered in the order it first cites them. */
export interface ExtractiveReport {
  readonly sections: ReportSection[];
  readonly cited: ReadSource[];
}

/** What of a task shapes its extractive report. */
export type ReportedJob = Pick<ResearchJob, 'input' | 'planModel' | 'citationFormat' | 'outputLength'>;

/**
 * The report without a model: a section per sub-question made only of sentences quoted verbatim from the sources
 * read (those that share the most content words with the sub-question; how many, the job's output_length says),
 * each followed by its citation, and the list of the sources cited. Nothing in it is written by the service but the
 * headings and a note where no source had anything to quote.
 */
export function extractiveReport(
  job: ReportedJob,
  subQuestions: readonly string[],
  sources: readonly ReadSource[],
): ExtractiveReport {
  const { input, citationFormat: format, outputLength } = job;
  const limits = {
    perSection: quotesPerSection(outputLength, job.planModel),
    perSource: quotesPerSource(outputLength),
  };
  const used = new Set<string>();
  // The narrower sub-questions choose first: the whole input (the first) can use what fits none of them.
  const quoted: Quote[][] = [];
  const order = subQuestions.map((_, index) => index);
  for (const index of [...order.slice(1), ...order.slice(0, 1)]) {
    quoted[index] = bestQuotes(subQuestions[index]!, index, sources, limits, used);
  }
  const numbers = new Map<string, number>();
  const cited: ReadSource[] = [];
  for (const quote of quoted.flat()) {
    if (numbers.has(quote.source.url)) continue;
    numbers.set(quote.source.url, cited.length + 1);
    cited.push({ ...quote.source, n: cited.length + 1 });
  }
  const sections: ReportSection[] = [{ heading: 'title', markdown: `# ${oneLine(input)}` }];
  subQuestions.forEach((question, index) => {
    const lines = quoted[index]!.map((q) => {
      const n = numbers.get(q.source.url)!;
      return `- ${q.sentence} ${inTextCitation(format, n, cited[n - 1]!)}`;
    });
    const body = lines.length > 0 ? lines.join('\n') : '_The sources read say nothing about this question._';
    const heading = oneLine(question) === oneLine(input) ? 'Overview' : oneLine(question);
    sections.push({ heading: question, markdown: `## ${heading}\n\n${body}` });
  });
  if (cited.length > 0) sections.push({ heading: 'sources', markdown: sourcesSection(format, cited) });
  return { sections, cited };
}

/**
 * The sentences of the sources that best answer `question` (at most `perSection`, and `perSource` of one source),
 * found for it first, never one quoted twice.
 */
export function bestQuotes(
  question: string,
  index: number,
  sources: readonly ReadSource[],
  limits: { readonly perSection: number; readonly perSource: number },
  used: Set<string>,
): Quote[] {
  const terms = contentTerms(question);
  if (terms.length === 0) return [];
  const needed = Math.min(2, terms.length);
  const candidates: { quote: Quote; score: number; order: number }[] = [];
  let order = 0;
  for (const source of sources) {
    const foundHere = source.foundFor.includes(index) ? 1 : 0;
    const text = markdownToText(source.content.slice(0, MAX_TEXT_PER_SOURCE));
    for (const sentence of proseSentences(text)) {
      order++;
      const sentenceText = sentence.text.trim();
      if (sentenceText.length < 20 || sentenceText.length > MAX_SENTENCE_CHARS) continue;
      // A sentence, not a heading or a label: it ends as sentences end.
      if (!/[.!?…]["'”’)\]]*$/.test(sentenceText)) continue;
      const present = new Set(words(sentenceText).map((w) => stem(w.word)));
      const matched = terms.filter((term) => present.has(term)).length;
      if (matched < needed) continue;
      const score = matched / terms.length + 0.25 * foundHere;
      candidates.push({ quote: { sentence: sentenceText, source }, score, order });
    }
  }
  candidates.sort((a, b) => b.score - a.score || a.order - b.order);
  const chosen: { quote: Quote; order: number }[] = [];
  const perSource = new Map<number, number>();
  for (const candidate of candidates) {
    if (chosen.length >= limits.perSection) break;
    const { sentence, source } = candidate.quote;
    const key = sentence.toLowerCase();
    if (used.has(key) || (perSource.get(source.n) ?? 0) >= limits.perSource) continue;
    used.add(key);
    perSource.set(source.n, (perSource.get(source.n) ?? 0) + 1);
    chosen.push(candidate);
  }
  // Reading order within the section: by source, then by place in the source.
  return chosen.sort((a, b) => a.quote.source.n - b.quote.source.n || a.order - b.order).map((c) => c.quote);
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
