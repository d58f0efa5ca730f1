import { type ReportedJob, contentTerms, extractiveReport } from './extractive-report.js';
import type { OutputLength } from './output-length.js';
import type { ReadSource } from './read-source.js';

const source = (n: number, url: string, content: string, foundFor: number[] = [0]): ReadSource => ({
  n,
  title: `Page ${n}`,
  url,
  favicon: null,
  content,
  foundFor,
});

const SOURCES = [
  source(
    1,
    'https://a.example/sleep',
    '# Sleep\n\nSleep research guide\n\nMost adults need seven to nine hours of sleep a night. Coffee is popular. ' +
      'Teenagers need more sleep than adults do.',
  ),
  source(2, 'https://b.example/coffee', 'Coffee contains caffeine, which can delay sleep by an hour.', [1]),
  source(3, 'https://c.example/unrelated', 'The harbour opened in 1850 and handles container ships.'),
];

const job = (input: string, outputLength: OutputLength = 'medium'): ReportedJob => ({
  input,
  planModel: 'mini',
  citationFormat: 'numbered',
  outputLength,
});

describe('extractive report', () => {
  test('sections of sentences quoted verbatim, cited, numbered in reading order; only cited sources listed', () => {
    const { sections, cited } = extractiveReport(
      job('How much sleep do adults need?'),
      ['How much sleep do adults need?', 'does coffee delay sleep'],
      SOURCES,
    );
    expect(sections.map((s) => s.markdown)).toEqual([
      '# How much sleep do adults need?',
      '## Overview\n\n- Most adults need seven to nine hours of sleep a night. [1]\n' +
        '- Teenagers need more sleep than adults do. [1]',
      '## does coffee delay sleep\n\n- Coffee contains caffeine, which can delay sleep by an hour. [2]',
      '## Sources\n\n1. [Page 1](https://a.example/sleep)\n2. [Page 2](https://b.example/coffee)',
    ]);
    expect(cited.map((s) => s.url)).toEqual(['https://a.example/sleep', 'https://b.example/coffee']);
  });

  test('no matching sentence: a note, no invented text, no sources section', () => {
    const { sections, cited } = extractiveReport(job('volcanoes'), ['volcano eruptions'], SOURCES);
    expect(sections.map((s) => s.markdown)).toEqual([
      '# volcanoes',
      '## volcano eruptions\n\n_The sources read say nothing about this question._',
    ]);
    expect(cited).toEqual([]);
  });

  test('output_length: short quotes one sentence per section, long more than medium', () => {
    const sleep = (length: OutputLength) =>
      extractiveReport(
        job('How much sleep do adults and teenagers need?', length),
        ['sleep adults teenagers'],
        [
          source(1, 'https://a.example/sleep', 'Most adults need seven to nine hours of sleep a night.'),
          source(
            2,
            'https://b.example/teens',
            'Teenagers need more sleep than adults. Adults who sleep less than six hours a night sleep too little.',
          ),
          source(
            3,
            'https://c.example/naps',
            'Adults and teenagers alike sleep better without screens. A short nap helps adults who sleep badly.',
          ),
          source(
            4,
            'https://d.example/study',
            'Sleep studies of adults and teenagers measure hours a night. Teenagers sleep later than adults.',
          ),
        ],
      )
        .sections[1]!.markdown.split('\n')
        .filter((line) => line.startsWith('- ')).length;
    expect(sleep('short')).toBe(1);
    expect(sleep('medium')).toBe(3);
    expect(sleep('long')).toBeGreaterThan(3);
  });

  test('content terms drop stop words and plural s', () => {
    expect(contentTerms('How many tides are there in the oceans?')).toEqual(['tide', 'ocean']);
  });
});
