import { DEFAULT_TUNING } from '../html/extraction-tuning.js';
import { auditedRules, verdictOf } from './rule-audit.js';

describe('the rule audit', () => {
  test('a rule that helps one half and hurts the other fits that half', () => {
    expect(verdictOf({ even: 0.003, odd: 0.001 })).toBe('helps both halves');
    expect(verdictOf({ even: 0.003, odd: 0 })).toBe('one half, no effect on the other');
    expect(verdictOf({ even: 0.003, odd: -0.002 })).toBe('fits one half');
    expect(verdictOf({ even: -0.001, odd: 0 })).toBe('hurts');
    expect(verdictOf({ even: 0.0001, odd: -0.0001 })).toBe('no effect');
  });

  test('each class/id word is switched off alone, then every word and each whole rule', () => {
    const rules = auditedRules(DEFAULT_TUNING);
    const byName = new Map(rules.map((r) => [r.rule, r.tuning]));
    const [first] = DEFAULT_TUNING.boilerplateWords;
    const withoutFirst = byName.get(`class/id word "${first}"`)!;
    expect(withoutFirst.boilerplateWords.has(first!)).toBe(false);
    expect(withoutFirst.boilerplateWords.size).toBe(DEFAULT_TUNING.boilerplateWords.size - 1);
    expect(byName.get('every class/id word')!.boilerplateWords.size).toBe(0);
    expect(byName.get('image captions')!.imageCaptionMaxLength).toBe(0);
    expect(byName.get('trailing follow lines')!.trailingFollowLines).toBe(false);
    expect(rules).toHaveLength(DEFAULT_TUNING.boilerplateWords.size + 5);
  });
});
