import { parseJsonObject } from '../../llm/chat-completion.js';
import { schemaMismatch } from './schema-check.js';

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    year: { type: 'integer' },
    kinds: { type: 'array', items: { enum: ['barrage', 'stream'] } },
  },
  required: ['name'],
};

describe('output_schema checks', () => {
  test('a matching object', () => {
    expect(schemaMismatch({ name: 'La Rance', year: 1966, kinds: ['barrage'] }, SCHEMA)).toBeNull();
    expect(schemaMismatch({ name: 'x', extra: true }, SCHEMA)).toBeNull();
  });

  test('where an object does not match', () => {
    expect(schemaMismatch({}, SCHEMA)).toBe('$.name is missing');
    expect(schemaMismatch({ name: 1 }, SCHEMA)).toBe('$.name is not of type string');
    expect(schemaMismatch({ name: 'x', year: 19.5 }, SCHEMA)).toBe('$.year is not of type integer');
    expect(schemaMismatch({ name: 'x', kinds: ['wave'] }, SCHEMA)).toBe('$.kinds[0] is not one of the allowed values');
    expect(schemaMismatch([], SCHEMA)).toBe('$ is not of type object');
  });

  test("the JSON object in a model's answer", () => {
    expect(parseJsonObject('Here it is:\n```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(() => parseJsonObject('no json')).toThrow('no JSON object');
    expect(() => parseJsonObject('{"a": }')).toThrow('malformed JSON');
  });
});
