/**
 * Every function that reads text we do not control (pages, PDFs' text, transcripts, engine results, queries, headers,
 * robots.txt, sitemaps, URLs) finishes on adversarial input of up to 100 KB: strings made of the characters its
 * patterns care about, above all a short unit repeated many times (what super-linear backtracking needs). One
 * catastrophic pattern blocks the event loop, and with it every request of every organization, for hours.
 *
 * Each call runs under `vm`'s timeout, which interrupts even a regular expression in the middle of its backtracking,
 * so that a super-linear function fails this test instead of hanging it. The bound is generous (a loaded CI machine
 * must not trip it); a linear function takes milliseconds, an exponential one never returns.
 *
 * FC_SEED replays a run and FC_RUNS scales the number of runs, as in test/property.
 */
import vm from 'node:vm';
import fc from 'fast-check';
import robotsParserModule from 'robots-parser';
import { normalizeUrl, parseStartUrl } from '../documents/normalize-url.js';
import { outlineHtml } from '../crawl/html-outline.js';
import { queryTerms } from '../crawl/relevance.js';
import { parseSitemap } from '../crawl/sitemap.js';
import { extractHtml } from '../extract/html/html-page.js';
import { decodeEntities, parseCaptionTrack } from '../extract/youtube/caption-track.js';
import { parseContentType } from '../fetch/content-type.js';
import { charsetFromMarkup, normalizeCharset } from '../fetch/decode-body.js';
import { planSubQuestions } from '../research/research-plan.js';
import { extractiveAnswer } from '../search/answer/extractive-answer.js';
import { domainMatcher } from '../search/index/domain-patterns.js';
import { quotedPhrases } from '../search/search-request.js';
import { linkListShare } from '../documents/link-list-share.js';
import { markdownToText } from '../search/text/markdown-text.js';
import { bestWindow, chunk, type ScoredSentence, truncate } from '../search/text/passages.js';
import { proseSentences, splitSentences } from '../search/text/sentences.js';
import { words } from '../search/text/words.js';
import { count } from '../search/upstream/json-shape.js';
import { canonicalUrl, countryCode, parseUpstreamDate, plainText } from '../search/upstream/upstream-text.js';
import { plain, priceOf } from '../verticals/local/schema-org.js';
import { resolutionOf } from '../verticals/upstream/searxng-verticals.js';
import { stripTags, trimChars, trimLineEnds } from './linear-text.js';

const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** The longest one call may take: far above a linear function on 100 KB, far below an exponential one. */
const CALL_LIMIT_MS = 10_000;
const MAX_INPUT_CHARS = 100_000;
const RUNS = Math.max(1, Math.round(12 * Number(process.env.FC_RUNS ?? 1)));
const seed = {
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
  ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
};

/** Markup and punctuation that text patterns look for, white space, letters and digits. */
const MARKDOWN = [...'[]()!*_`~<>#|-:\\"\'&;./= \t\nax1Aé'];
const HTML = [...'<>/="\' \n!-abpdivhrefscript:;&#x1.?'];
const PROSE = [...'.!?…"\'”’)]([“‘ \t\nAaZz19%,;:-e.g'];
const URLS = [...'/:?#&=%.@[]-_~+ hpst1aZ'];
const HEADERS = [...'; =,"\'\\ \t-/*aZ8utf'];
const XML = [...'<>/?!-[]CDAT="\' locurlsethtp:./\n&;'];

const unitOf = (alphabet: readonly string[], max: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength: max });

/**
 * Adversarial text: a short head, then a unit of 1–8 characters repeated up to 100 KB, then a short tail (the
 * "rejecting suffix" that makes a pattern give up and retry from the next position); or plain random text.
 */
function adversarial(alphabet: readonly string[]): fc.Arbitrary<string> {
  const repeated = fc
    .record({
      head: fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 24 }),
      unit: unitOf(alphabet, 8),
      size: fc.integer({ min: 1_000, max: MAX_INPUT_CHARS }),
      tail: fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 8 }),
    })
    .map(({ head, unit, size, tail }) => head + unit.repeat(Math.ceil(size / unit.length)).slice(0, size) + tail);
  const random = fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 5_000 });
  return fc.oneof({ arbitrary: repeated, weight: 3 }, { arbitrary: random, weight: 1 });
}

/** A counterexample as fast-check prints it: its length and ends, not 100 KB of text. */
const printable = (text: string) =>
  Object.assign(new String(text), {
    [fc.toStringMethod]: () =>
      `${JSON.stringify(text.slice(0, 60))} … ${JSON.stringify(text.slice(-30))} (${text.length} chars)`,
  });

/** Runs `fn(input)` with a hard deadline; what it took, in ms. */
function timed(fn: (input: string) => unknown, input: string): number {
  const started = performance.now();
  vm.runInNewContext('fn(input)', { fn, input }, { timeout: CALL_LIMIT_MS });
  return performance.now() - started;
}

function finishes(name: string, alphabet: readonly string[], fn: (input: string) => unknown, known: string[] = []) {
  it(`${name} finishes on adversarial input up to 100 KB`, () => {
    for (const input of known) expect(timed(fn, input)).toBeLessThan(CALL_LIMIT_MS);
    fc.assert(
      fc.property(adversarial(alphabet).map(printable), (input) => {
        timed(fn, String(input));
      }),
      { numRuns: RUNS, ...seed },
    );
  });
}

const scored = (text: string): ScoredSentence[] =>
  proseSentences(text).map((sentence) => {
    const hits = new Map<string, number[]>();
    for (const word of words(sentence.text)) {
      if (word.word !== 'a' && word.word !== 'x1') continue;
      const positions = hits.get(word.word) ?? [];
      positions.push(word.position);
      hits.set(word.word, positions);
    }
    return { ...sentence, hits };
  });
const weights = new Map([
  ['a', 1],
  ['x1', 2],
]);

describe('text functions on untrusted input', () => {
  const unclosedLink = (n: number) => `See [the docs](${'x'.repeat(n)} for details`;

  it('the markdown link that froze a node is read in linear time', () => {
    expect(markdownToText(unclosedLink(24))).toBe('See [the docs](xxxxxxxxxxxxxxxxxxxxxxxx for details');
    expect(timed(markdownToText, unclosedLink(40))).toBeLessThan(CALL_LIMIT_MS);
    expect(timed(markdownToText, unclosedLink(100_000))).toBeLessThan(CALL_LIMIT_MS);
  });

  finishes('markdownToText', MARKDOWN, markdownToText, [
    unclosedLink(50_000),
    '**a '.repeat(25_000),
    '['.repeat(100_000),
    '<a'.repeat(50_000),
    '`'.repeat(100_000),
    ` ${' '.repeat(100_000)}x`,
  ]);
  finishes('linkListShare', MARKDOWN, linkListShare, ['['.repeat(100_000), '- [a](' + 'x'.repeat(100_000)]);
  finishes('splitSentences', PROSE, splitSentences, ['.'.repeat(100_000) + 'x', 'a'.repeat(100_000) + '.']);
  finishes('proseSentences', PROSE, proseSentences);
  finishes('words', PROSE, words, ['1.'.repeat(50_000)]);
  finishes('truncate', PROSE, (text) => truncate(`${text} ${'.'.repeat(600)}`));
  finishes('snippets (bestWindow) and passages (chunk)', PROSE, (text) => {
    const sentences = scored(text);
    return [bestWindow(sentences, weights), chunk(sentences)];
  });
  finishes('extractive answers', MARKDOWN, (text) =>
    extractiveAnswer(
      'a x1',
      scored(markdownToText(text)).map((sentence) => ({ sentence, source: 0, relevance: 1, hits: sentence.hits })),
      weights,
      'advanced',
    ),
  );
  finishes('extractHtml (markdown and text)', HTML, (html) => [
    extractHtml(html, 'https://example.com/a', { depth: 'basic', format: 'markdown' }),
    extractHtml(html, 'https://example.com/a', { depth: 'advanced', format: 'text' }),
  ]);
  finishes('outlineHtml', HTML, (html) => outlineHtml(html, 'https://example.com/a'));
  finishes(
    'URL normalisation',
    URLS,
    (url) => [
      normalizeUrl(url),
      normalizeUrl(url.slice(0, 2_000), 'https://example.com/'),
      parseStartUrl(url),
      canonicalUrl(url),
    ],
    [`https://example.com/${'/'.repeat(2_000)}x`],
  );
  finishes('robots.txt', [...URLS, '\n', '*', '$'], (body) => {
    const robots = robotsParser('https://example.com/robots.txt', `User-agent: *\n${body}`);
    return robots.isAllowed(`https://example.com/${'a/'.repeat(1_000)}`, 'SearchLedgerBot');
  });
  finishes('sitemaps', XML, (body) => parseSitemap(body, 'https://example.com/sitemap.xml'));
  finishes('caption tracks', XML, (body) => [parseCaptionTrack(body), decodeEntities(body)]);
  finishes('engine results', [...HTML, ...PROSE], (text) => [
    plainText(text),
    parseUpstreamDate(text.slice(0, 200)),
    countryCode(text.slice(0, 200)),
    count(text),
    resolutionOf(text),
    plain(text),
    priceOf(text),
  ]);
  // As a request may state them: up to 300 entries of up to 500 characters (`*.*.*.*.com` among them).
  finishes('domain filters', [...URLS, '*'], (text) => {
    const entries = Array.from({ length: Math.min(300, Math.ceil(text.length / 500)) }, (_, i) =>
      text.slice(i * 500, i * 500 + 500),
    );
    return domainMatcher([...entries, `${'*.'.repeat(240)}com`])?.(`https://${text}`);
  });
  finishes('queries', PROSE, (query) => [quotedPhrases(query), planSubQuestions(query, 'pro'), queryTerms(query)]);
  finishes('headers', HEADERS, (header) => [
    parseContentType(header),
    normalizeCharset(header),
    charsetFromMarkup(Buffer.from(`<meta charset="${header}">`)),
  ]);
  finishes('linear-text helpers', [...'/ \t\n<>ax'], (text) => [
    stripTags(text),
    trimChars(text, '/ '),
    trimLineEnds(text),
  ]);
});
