import { MAX_JSON_DEPTH, jsonBodyProblem } from './json-body-guard.js';

const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('jsonBodyProblem', () => {
  test('ordinary bodies pass', () => {
    expect(jsonBodyProblem(undefined)).toBeNull();
    expect(jsonBodyProblem('text')).toBeNull();
    expect(jsonBodyProblem({ query: 'a 😀 b', urls: ['https://a.test/é'], n: 1, x: null })).toBeNull();
  });

  test('depth counts arrays and objects', () => {
    expect(jsonBodyProblem({ a: [1, { b: 'c' }] }, 3)).toBeNull();
    expect(jsonBodyProblem({ a: [1, { b: 'c' }] }, 2)).toMatch(/nested too deeply/);
  });

  test('a body nested far deeper than the stack allows is measured without recursion', () => {
    expect(jsonBodyProblem(nested(200_000))).toMatch(/more than 64 levels/);
    expect(jsonBodyProblem(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonBodyProblem(nested(MAX_JSON_DEPTH + 1))).toMatch(/nested too deeply/);
  });

  test('NUL and unpaired surrogates, in values and keys, at any depth', () => {
    expect(jsonBodyProblem(JSON.parse('{"query":"a\\u0000b"}'))).toMatch(/NUL/);
    expect(jsonBodyProblem(JSON.parse('{"name":"\\ud800"}'))).toMatch(/unpaired surrogate/);
    expect(jsonBodyProblem(JSON.parse('{"a":[{"b":["\\udfff"]}]}'))).toMatch(/unpaired surrogate/);
    expect(jsonBodyProblem(JSON.parse('{"\\u0000":1}'))).toMatch(/NUL/);
    expect(jsonBodyProblem('\u0000')).toMatch(/NUL/);
  });
});
