import { contentTerms, extractiveReport } from './extractive-report.js';
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

describe('extractive report', () => {
  test('sections of sentences quoted verbatim, cited, numbered in reading order; only cited sources listed', () => {
    const { sections, cited } = extractiveReport(
      'How much sleep do adults need?',
      ['How much sleep do adults need?', 'does coffee delay sleep'],
      SOURCES,
      'mini',
      'numbered',
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
    const { sections, cited } = extractiveReport('volcanoes', ['volcano eruptions'], SOURCES, 'mini', 'numbered');
    expect(sections.map((s) => s.markdown)).toEqual([
      '# volcanoes',
      '## volcano eruptions\n\n_The sources read say nothing about this question._',
    ]);
    expect(cited).toEqual([]);
  });

  test('content terms drop stop words and plural s', () => {
    expect(contentTerms('How many tides are there in the oceans?')).toEqual(['tide', 'ocean']);
  });
});
