import { mean, formatScores, scoreDirectory } from './extraction-quality.js';
import { tokenF1 } from './token-f1.js';

describe('extraction quality on the fixture articles (token F1 against hand-written main text)', () => {
  const scores = scoreDirectory('test/fixtures/site/articles');

  test('every fixture article with expected text is scored', () => {
    expect(scores.map((s) => s.page).sort()).toEqual([
      'blog-post.html',
      'docs-config.html',
      'field-notes.xhtml',
      'harbour-news.html',
      'kettle-product.html',
      'paper-abstract.html',
      'planets-table.html',
      'short-notice.html',
    ]);
    console.log(formatScores(scores));
  });

  test('mean F1 of at least 0.95, no page below 0.85, never worse than plain Readability', () => {
    expect(mean(scores, (s) => s.ours.f1)).toBeGreaterThanOrEqual(0.95);
    for (const score of scores) {
      expect([score.page, score.ours.f1 >= 0.85]).toEqual([score.page, true]);
      expect([score.page, score.ours.f1 >= score.readability.f1 - 0.01]).toEqual([score.page, true]);
    }
  });

  test('tokenF1', () => {
    expect(tokenF1('a b c', 'a b c').f1).toBe(1);
    expect(tokenF1('a b', 'a b c d')).toEqual({ precision: 1, recall: 0.5, f1: 2 / 3 });
    expect(tokenF1('', 'a').f1).toBe(0);
  });
});
