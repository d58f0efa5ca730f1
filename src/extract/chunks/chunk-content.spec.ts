import { bm25Scores } from './bm25.js';
import { CHUNK_SEPARATOR, relevantChunks, splitIntoChunks } from './chunk-content.js';
import { stem, tokenize } from './tokenize.js';

const paragraph = (topic: string, n = 6) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i + 1} is about ${topic} and nothing else.`).join(' ');

describe('splitIntoChunks', () => {
  test('packs whole paragraphs while they fit in 500 characters', () => {
    const content = ['First short paragraph.', 'Second short paragraph.', 'Third.'].join('\n\n');
    expect(splitIntoChunks(content)).toEqual([content]);
  });

  test('never exceeds the limit, splitting long paragraphs between sentences and long sentences between words', () => {
    const long = paragraph('the weather', 40);
    const monster = 'word '.repeat(300).trim();
    const chunks = splitIntoChunks([long, monster, 'x'.repeat(1200)].join('\n\n'));
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(500);
    expect(chunks[0]).toMatch(/^Sentence 1 is about the weather and nothing else\..*else\.$/);
    expect(chunks.join(' ').replace(/\s+/g, ' ')).toBe(
      [long, monster, 'x'.repeat(1200)]
        .join(' ')
        .replace(/\s+/g, ' ')
        .replace(/(x{500})(?=x)/g, '$1 '),
    );
  });

  test('empty content has no chunks', () => {
    expect(splitIntoChunks('  \n\n ')).toEqual([]);
  });
});

describe('relevantChunks', () => {
  const content = [
    paragraph('tidal turbines'),
    paragraph('cheese making'),
    paragraph('rowing boats'),
    paragraph('turbine blades of tidal arrays'),
    paragraph('mountain hiking'),
  ].join('\n\n');

  test('the top N by BM25, in document order, joined with [...]', () => {
    const result = relevantChunks(content, 'tidal turbine', 2);
    const parts = result.split(CHUNK_SEPARATOR);
    expect(parts).toHaveLength(2);
    expect(parts[0]).toContain('tidal turbines');
    expect(parts[1]).toContain('turbine blades of tidal arrays');
  });

  test('no match: the first chunks; fewer chunks than asked: all of them', () => {
    expect(relevantChunks(content, 'quantum chromodynamics', 1)).toBe(splitIntoChunks(content)[0]);
    expect(relevantChunks('one paragraph only', 'anything', 3)).toBe('one paragraph only');
  });
});

describe('BM25 and tokens', () => {
  test('stems lightly and drops stop words', () => {
    expect(tokenize('The Storms were rising; cafés & boxes')).toEqual(['storm', 'ris', 'caf', 'box']);
    expect(tokenize('rise tides')).toEqual(tokenize('rising tide'));
    expect(stem('studies')).toBe('study');
    expect(stem('running')).toBe('run');
    expect(stem('glass')).toBe('glass');
  });

  test('rarer terms weigh more, and a document without the terms scores 0', () => {
    const scores = bm25Scores(['tide tide moon', 'tide sun', 'nothing here'], 'tide moon');
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[2]).toBe(0);
  });
});
