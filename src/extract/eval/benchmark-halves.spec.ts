import { halfOf, halfScores } from './benchmark-halves.js';
import { shingleMatching } from './shingle-f1.js';

describe('benchmark halves by page-id parity', () => {
  test('a hexadecimal id by its last digit; another id by its last character', () => {
    expect(['0a', 'ff0', '12', 'abc'].map(halfOf)).toEqual(['even', 'even', 'even', 'even']);
    expect(['0b', 'fff', '13', 'abd'].map(halfOf)).toEqual(['odd', 'odd', 'odd', 'odd']);
    expect([halfOf('page-x'), halfOf('page-y')]).toEqual(['even', 'odd']); // 'x' is 120, 'y' 121
  });

  test('each half is scored on its own pages only', () => {
    const perfect = shingleMatching('a b c d e', 'a b c d e');
    const missed = shingleMatching('a b c d e', '');
    const halves = halfScores([
      { id: '10', counts: perfect },
      { id: '12', counts: perfect },
      { id: '11', counts: missed },
    ]);
    expect(halves.even).toEqual({ f1: 1, precision: 1, recall: 1, pages: 2 });
    expect(halves.odd).toMatchObject({ recall: 0, pages: 1 });
  });
});
