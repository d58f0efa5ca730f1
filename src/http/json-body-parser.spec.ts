import { jsonHeadersProblem, mediaTypeParameter } from './json-body-parser.js';

describe('JSON body headers', () => {
  test('mediaTypeParameter: case-insensitive names, quoted values unquoted', () => {
    expect(mediaTypeParameter('application/json', 'charset')).toBeUndefined();
    expect(mediaTypeParameter('application/json; charset=utf-8', 'charset')).toBe('utf-8');
    expect(mediaTypeParameter('application/json;CHARSET="UTF-8"', 'charset')).toBe('UTF-8');
    expect(mediaTypeParameter('application/json;;', 'charset')).toBeUndefined();
    expect(mediaTypeParameter('application/json; foo=bar; charset=latin1', 'charset')).toBe('latin1');
  });

  test('UTF-8 without a content coding passes; other charsets and codings are refused', () => {
    expect(jsonHeadersProblem({ 'content-type': 'application/json' })).toBeNull();
    expect(jsonHeadersProblem({ 'content-type': 'application/json; charset=UTF-8' })).toBeNull();
    expect(jsonHeadersProblem({ 'content-type': 'application/json', 'content-encoding': 'Identity' })).toBeNull();
    expect(jsonHeadersProblem({ 'content-type': 'application/json; charset=utf-16' })?.message).toMatch(/UTF-8/);
    expect(jsonHeadersProblem({ 'content-type': 'application/json', 'content-encoding': 'gzip' })).toMatchObject({
      acceptEncoding: true,
    });
    expect(
      jsonHeadersProblem({ 'content-type': 'application/json', 'content-encoding': 'gzip, identity' }),
    ).not.toBeNull();
  });
});
