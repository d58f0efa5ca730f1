import { MAX_PATTERN_LENGTH, patternListProblem } from './url-pattern.js';

describe('patternListProblem', () => {
  test('accepts absent, empty and valid lists', () => {
    expect(patternListProblem(undefined)).toBeNull();
    expect(patternListProblem(null)).toBeNull();
    expect(patternListProblem([])).toBeNull();
    expect(patternListProblem(['/docs/.*', '^docs\\.example\\.com$', '(?i)/api/'])).toBeNull();
  });

  test.each([
    ['a string', '/docs/', 'must be an array of regular expressions'],
    ['a non-string item', ['/docs', 3], 'must be an array of regular expressions'],
    ['an unclosed class', ['/docs/[a-'], 'has an invalid regular expression "/docs/[a-": '],
    ['look-ahead', ['(?=x)'], 'has an invalid regular expression'],
    ['a back-reference', ['(a)\\1'], 'has an invalid regular expression'],
    ['a pattern too long', ['a'.repeat(MAX_PATTERN_LENGTH + 1)], `longer than ${MAX_PATTERN_LENGTH} characters`],
    ['too many patterns', Array.from({ length: 51 }, (_, i) => `/p${i}`), 'may hold at most 50 patterns'],
  ])('refuses %s', (_, value, message) => {
    expect(patternListProblem(value)).toContain(message);
  });
});
