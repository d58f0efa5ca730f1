import { BadRequestException } from '@nestjs/common';
import { saturate } from '../index/bm25.js';
import { domainMatcher, domainPatternToRegex } from '../index/domain-patterns.js';
import { documentImages } from '../index/document-images.js';
import { nearDuplicate } from '../answer/extractive-answer.js';
import { autoParameters, quotedPhrases, timeWindow } from '../search-request.js';
import { isCalendarDate } from '../../http/dto/calendar-date.js';
import { markdownToText } from './markdown-text.js';
import {
  MAX_PASSAGE_CHARS,
  type ScoredSentence,
  bestWindow,
  chunk,
  mayContainTerms,
  spanWeight,
  truncate,
} from './passages.js';
import { linkListShare } from '../../documents/link-list-share.js';
import { stemPrefixes, words } from './words.js';
import { proseSentences, splitSentences } from './sentences.js';

describe('markdownToText', () => {
  test('drops markdown syntax, keeps the words, one block per line', () => {
    const markdown = [
      '# Title',
      '',
      'Some **bold** and _italic_ text with a [link](https://x.test/a "t") and `code`.',
      '',
      '- item one',
      '2. item two',
      '> quoted   words',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '```js',
      'const x = 1;',
      '```',
      '![alt text](https://x.test/i.png)',
      '---',
      'a\\*b &amp; c',
    ].join('\n');
    expect(markdownToText(markdown)).toBe(
      [
        'Title',
        '',
        'Some bold and italic text with a link and code.',
        '',
        'item one',
        'item two',
        'quoted words',
        '',
        'a | b',
        '1 | 2',
        '',
        'const x = 1;',
        'alt text',
        'a*b & c',
      ].join('\n'),
    );
  });

  test('snake_case words and arithmetic stay as they are', () => {
    expect(markdownToText('use max_results and 2 * 3 * 4')).toBe('use max_results and 2 * 3 * 4');
  });
});

describe('splitSentences', () => {
  test('splits on sentence ends, not after abbreviations, initials or decimals; verbatim substrings', () => {
    const text = 'Dr. Smith met J. R. Jones at 3.5 p.m. on Monday. It rained! Did it? Yes.\nA new line here';
    const sentences = splitSentences(text);
    expect(sentences.map((s) => s.text)).toEqual([
      'Dr. Smith met J. R. Jones at 3.5 p.m. on Monday.',
      'It rained!',
      'Did it?',
      'Yes.',
      'A new line here',
    ]);
    for (const s of sentences) expect(text.slice(s.start, s.end)).toBe(s.text);
    expect(sentences.map((s) => s.block)).toEqual([0, 0, 0, 0, 1]);
  });

  test('splits sentences joined without a space, as the index does, but not identifiers', () => {
    const text =
      'Risk is high in developed countries.Behavioural factors matter (50-90%).However, java.lang.String and Math.Max(a) stay whole; e.g.Some and U.S.Army too.';
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      'Risk is high in developed countries.',
      'Behavioural factors matter (50-90%).',
      'However, java.lang.String and Math.Max(a) stay whole; e.g.Some and U.S.Army too.',
    ]);
  });

  test('proseSentences leaves out headings and labels (unless nothing else is left)', () => {
    const text = 'Course\nThe river rises in the forest. It flows east.\nTravel';
    expect(proseSentences(text).map((s) => s.text)).toEqual(['The river rises in the forest.', 'It flows east.']);
    expect(proseSentences('Flour\nEggs').map((s) => s.text)).toEqual(['Flour', 'Eggs']);
  });
});

describe('passages', () => {
  const sentence = (text: string, index: number, hits: [string, number[]][] = []): ScoredSentence => ({
    text,
    start: index * 100,
    end: index * 100 + text.length,
    block: 0,
    index,
    hits: new Map(hits),
  });
  const weights = new Map([
    ['river', 1],
    ['delta', 3],
  ]);

  test('the snippet is the window with the most query-term weight', () => {
    const sentences = [
      sentence('The river is long.', 0, [['river', [2]]]),
      sentence('Nothing here.', 1),
      sentence('x'.repeat(480) + '.', 2),
      sentence('The delta of the river is wide.', 3, [
        ['delta', [2]],
        ['river', [5]],
      ]),
    ];
    const best = bestWindow(sentences, weights)!;
    expect(best.text.startsWith('The delta of the river is wide.')).toBe(true);
    expect(best.text.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
  });

  test("a translation's occurrences count at their share: the snippet finds the page's word for the query's", () => {
    const translations = [{ source: 'delta', target: 'estuari', share: 0.4 }];
    const estuary = sentence('The estuary is wide.', 1, [['estuari', [1]]]);
    const sentences = [sentence('x'.repeat(480) + '.', 0), estuary];
    expect(bestWindow(sentences, weights)!.text.startsWith('x')).toBe(true); // no hits without the translation
    expect(bestWindow(sentences, weights, translations)!.text).toBe('The estuary is wide.');
    expect(spanWeight([estuary], weights, translations)).toBeCloseTo(saturate(3, 0.4), 12);
    expect(spanWeight([estuary], weights, translations)).toBeLessThan(
      spanWeight([sentence('The delta is wide.', 1, [['delta', [1]]])], weights),
    );
  });

  test('no hits: the opening of the page', () => {
    expect(bestWindow([sentence('First.', 0), sentence('Second.', 1)], weights)!.text).toBe('First. Second.');
  });

  test('chunks are consecutive whole sentences of at most 500 characters', () => {
    const sentences = Array.from({ length: 30 }, (_, i) => sentence(`Sentence number ${i} ${'y'.repeat(60)}.`, i));
    const chunks = chunk(sentences);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
    expect(chunks.flatMap((c) => c.sentences.map((s) => s.index))).toEqual(sentences.map((s) => s.index));
  });

  test('truncate cuts at a word boundary with an ellipsis', () => {
    const cut = truncate(`${'word '.repeat(200)}end`);
    expect(cut.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
    expect(cut.endsWith('word…')).toBe(true);
  });

  test('the stem prefilter finds word forms, including y → i stems', () => {
    const may = mayContainTerms(['studi', 'river']);
    expect(may('She studies rivers.')).toBe(true);
    expect(may('A study of lakes.')).toBe(true);
    expect(may('Nothing relevant.')).toBe(false);
    const cyrillic = mayContainTerms(['реки', 'river']);
    expect(cyrillic('Большие Реки Европы')).toBe(true);
    expect(cyrillic('Озёра')).toBe(false);
  });
});

describe('domain patterns', () => {
  const matches = (pattern: string, url: string) => domainMatcher([pattern])!(url);

  test.each([
    ['example.com', 'https://example.com/a', true],
    ['example.com', 'https://www.example.com/', true],
    ['example.com', 'https://blog.example.com/x', true],
    ['example.com', 'https://notexample.com/', false],
    ['example.com', 'https://example.com.evil.test/', false],
    ['www.example.com', 'https://example.com/', true],
    ['*.com', 'https://a.b.com/x', true],
    ['*.com', 'https://example.org/x', false],
    ['*.co.uk', 'https://news.example.co.uk/', true],
    ['docs.*.org', 'https://docs.python.org/3/', true],
    ['example.com/blog', 'https://example.com/blog', true],
    ['example.com/blog', 'https://www.example.com/blog/post-1', true],
    ['example.com/blog', 'https://example.com/blog?page=2', true],
    ['example.com/blog', 'https://example.com/blogging', false],
    ['example.com/blog', 'https://example.com/docs', false],
    ['https://example.com/blog/', 'https://example.com/blog/x', true],
    ['linkedin.com/in', 'https://www.linkedin.com/in/someone', true],
    ['example.com', 'http://example.com:8080/x', true],
  ])('%s matches %s: %s', (pattern, url, expected) => {
    expect(matches(pattern, url)).toBe(expected);
  });

  test('blank entries are dropped', () => {
    expect(domainPatternToRegex('  ')).toBeNull();
  });
});

describe('request resolution', () => {
  const now = new Date('2026-06-15T12:00:00Z');

  test('quoted phrases', () => {
    expect(quotedPhrases('"quick brown fox" jumps “lazy dog” "" x')).toEqual(['quick brown fox', 'lazy dog']);
  });

  test('time windows: dates win over time_range; end_date is inclusive; days only for news', () => {
    expect(timeWindow({ time_range: 'week' }, 'general', now)).toEqual({
      from: new Date('2026-06-08T12:00:00Z'),
      to: null,
    });
    expect(timeWindow({ time_range: 'd', start_date: '2026-01-01', end_date: '2026-01-31' }, 'general', now)).toEqual({
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-02-01T00:00:00Z'),
    });
    expect(timeWindow({ days: 3 }, 'news', now).from).toEqual(new Date('2026-06-12T12:00:00Z'));
    expect(timeWindow({ days: 3 }, 'general', now)).toEqual({ from: null, to: null });
    expect(() => timeWindow({ start_date: '2026-02-01', end_date: '2026-01-01' }, 'general', now)).toThrow();
  });

  test('max_hours: wins over time_range and days; with start_date the later start counts, end_date stays', () => {
    expect(timeWindow({ max_hours: 6, time_range: 'year' }, 'general', now)).toEqual({
      from: new Date('2026-06-15T06:00:00Z'),
      to: null,
    });
    expect(timeWindow({ max_hours: 6, days: 30 }, 'news', now).from).toEqual(new Date('2026-06-15T06:00:00Z'));
    expect(timeWindow({ max_hours: 48, start_date: '2026-06-14' }, 'general', now).from).toEqual(
      new Date('2026-06-14T00:00:00Z'),
    );
    expect(timeWindow({ max_hours: 6, end_date: '2026-06-30' }, 'general', now)).toEqual({
      from: new Date('2026-06-15T06:00:00Z'),
      to: new Date('2026-07-01T00:00:00Z'),
    });
    expect(() => timeWindow({ max_hours: 6, end_date: '2026-06-01' }, 'general', now)).toThrow(BadRequestException);
  });

  test('calendar dates', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('2024-13-01')).toBe(false);
    expect(isCalendarDate('2024-1-01')).toBe(false);
  });

  test('auto parameters', () => {
    expect(autoParameters({ query: 'latest news on the harbour' })).toEqual({ topic: 'news', timeRange: 'week' });
    expect(autoParameters({ query: 'acme stock price' })).toEqual({ topic: 'finance', timeRange: undefined });
    expect(autoParameters({ query: 'how rivers form' })).toEqual({ topic: 'general', timeRange: undefined });
    expect(autoParameters({ query: 'breaking news', topic: 'general' })).toEqual({
      topic: 'general',
      timeRange: undefined,
    });
  });
});

describe('images and answers helpers', () => {
  test('image descriptions: OpenGraph alt, ImageObject caption, else file name and title', () => {
    const images = documentImages(
      ['https://x.test/a.jpg', 'https://x.test/b.jpg', 'https://x.test/sunset-over-the-bay_2.png', 'data:x'],
      [
        { '@source': 'opengraph', 'og:image': 'https://x.test/a.jpg', 'og:image:alt': 'Alt from OG' },
        { '@source': 'json-ld', '@type': 'ImageObject', contentUrl: 'https://x.test/b.jpg', caption: 'A caption' },
      ],
      'Page title',
    );
    expect(images).toEqual([
      { url: 'https://x.test/a.jpg', description: 'Alt from OG' },
      { url: 'https://x.test/b.jpg', description: 'A caption' },
      { url: 'https://x.test/sunset-over-the-bay_2.png', description: 'Sunset over the bay — Page title' },
    ]);
  });

  test('near duplicates', () => {
    expect(nearDuplicate('The river is long and wide.', 'The river is long and wide!')).toBe(true);
    expect(nearDuplicate('The river is long.', 'The mountain is high.')).toBe(false);
  });
});

describe('words', () => {
  test('runs of letters and digits, lower-cased and as written, positioned as to_tsvector counts words', () => {
    expect(words('Rivers flow; the p53 gene at 3.5 mg, café. GPUs')).toEqual(
      [
        ['rivers', 'Rivers'],
        ['flow', 'flow'],
        ['the', 'the'],
        ['p53', 'p53'],
        ['gene', 'gene'],
        ['at', 'at'],
        ['3.5', '3.5'],
        ['mg', 'mg'],
        ['café', 'café'],
        ['gpus', 'GPUs'],
      ].map(([word, written], i) => ({ word, written, position: i + 1 })),
    );
  });

  test('stem prefixes allow the y → i stems and fold accents', () => {
    expect(stemPrefixes(['studi', 'naïv', 'river'])).toEqual(['stud', 'naiv', 'river']);
  });
});

describe('link and list share', () => {
  test('prose is 0, an index of links or short entries near 1, mixed pages in between', () => {
    expect(
      linkListShare('The web server serves static files.\n\nIt reads them from [one directory](https://x.test/d).'),
    ).toBeLessThan(0.3);
    expect(
      linkListShare(Array.from({ length: 20 }, (_, i) => `-   [Entry ${i}](https://x.test/${i})`).join('\n\n')),
    ).toBe(1);
    expect(linkListShare(Array.from({ length: 20 }, (_, i) => `-   \\--option-${i}`).join('\n'))).toBe(1);
    const mixed = `${'A paragraph of prose that explains the options below in some detail. '.repeat(3)}\n\n- one\n- two\n- three`;
    expect(linkListShare(mixed)).toBeGreaterThan(0);
    expect(linkListShare(mixed)).toBeLessThan(0.2);
    expect(linkListShare('')).toBe(0);
    expect(linkListShare('![a chart](https://x.test/c.png)')).toBe(0);
  });
});
