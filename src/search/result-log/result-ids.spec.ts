import { parseResultId, resultId } from './result-ids.js';

describe('search result ids', () => {
  test('name the request and the position, and parse back', () => {
    const requestId = '0b6f4a1e-8f7c-4c39-9d0e-2a7d1f3c5b90';
    expect(resultId(requestId, 4)).toBe(`${requestId}-04`);
    expect(resultId(requestId, 12)).toBe(`${requestId}-12`);
    expect(parseResultId(resultId(requestId, 4))).toEqual({ requestId, position: 4 });
    expect(parseResultId(resultId('mcp-call:2', 1))).toEqual({ requestId: 'mcp-call:2', position: 1 });
  });

  test('anything else is not a result id', () => {
    for (const id of ['', '-01', 'abc', 'abc-', 'abc-1', 'abc-00', 'abc-0x1', 'abc-1234']) {
      expect(parseResultId(id)).toBeNull();
    }
  });
});
