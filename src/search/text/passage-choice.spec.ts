import { choosePassages } from './passage-choice.js';
import { MAX_PASSAGE_CHARS, type ScoredSentence, chunk } from './passages.js';

const sentence = (text: string, index: number, hits: [string, number[]][] = []): ScoredSentence => ({
  text,
  start: index * 1000,
  end: index * 1000 + text.length,
  block: 0,
  index,
  hits: new Map(hits),
});
const filler = (index: number, hits: [string, number[]][] = []) =>
  sentence(`Filler sentence ${index} ${'z'.repeat(150)}.`, index, hits);
// "cohort" is common (low IDF), "statin" and "myopathy" rare.
const weights = new Map([
  ['cohort', 0.3],
  ['statin', 4],
  ['myopathy', 5],
]);

describe('choosePassages', () => {
  test('the sentence with the rare terms is shown whole, though a fixed chunk of common terms outscores its chunk', () => {
    const evidence = sentence('Statin use raised the risk of myopathy twofold.', 3, [
      ['statin', [0]],
      ['myopathy', [6]],
    ]);
    const sentences = [
      filler(0, [['cohort', [1]]]),
      filler(1, [['cohort', [1]]]),
      filler(2, [['cohort', [1]]]),
      evidence,
      filler(4),
      filler(5),
    ];
    const [best] = choosePassages(sentences, weights, [], 1);
    expect(best!.sentences).toContain(evidence);
    expect(best!.text).toContain(evidence.text);
    expect(best!.text.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
    // Fixed chunks may cut it off its context or put it in a chunk that ranks lower: the choice starts from it.
    expect(chunk(sentences).length).toBeGreaterThan(1);
  });

  test('windows do not overlap, the best comes first, and there are at most `count`', () => {
    const sentences = Array.from({ length: 12 }, (_, i) =>
      filler(i, i % 4 === 0 ? [['statin', [0]]] : i === 6 ? [['myopathy', [0]]] : []),
    );
    const chosen = choosePassages(sentences, weights, [], 3);
    expect(chosen.length).toBe(3);
    expect(chosen[0]!.sentences.map((s) => s.index)).toContain(6);
    const indices = chosen.flatMap((p) => p.sentences.map((s) => s.index));
    expect(new Set(indices).size).toBe(indices.length);
    for (const p of chosen) expect(p.text.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS);
  });

  test('no sentence with a query term: nothing chosen (the caller shows the opening)', () => {
    expect(choosePassages([filler(0), filler(1)], weights, [], 3)).toEqual([]);
  });
});
