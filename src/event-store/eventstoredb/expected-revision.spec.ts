import { ANY, NO_STREAM, STREAM_EXISTS } from '@eventstore/db-client';
import { toActualRevision, toEsdbExpectedRevision } from './expected-revision.js';

describe('toEsdbExpectedRevision', () => {
  test.each([
    ['no_stream', NO_STREAM],
    ['stream_exists', STREAM_EXISTS],
    ['any', ANY],
  ] as const)('%s maps to the client constant', (ours, theirs) => {
    expect(toEsdbExpectedRevision(ours)).toBe(theirs);
  });

  test('an exact revision is passed through as a bigint', () => {
    expect(toEsdbExpectedRevision(0n)).toBe(0n);
    expect(toEsdbExpectedRevision(41n)).toBe(41n);
  });

  test('a negative revision is refused before it reaches the server', () => {
    expect(() => toEsdbExpectedRevision(-1n)).toThrow(RangeError);
  });
});

describe('toActualRevision', () => {
  test('a revision stays a revision', () => {
    expect(toActualRevision(0n)).toBe(0n);
    expect(toActualRevision(7n)).toBe(7n);
  });

  test('both spellings of a missing stream become no_stream', () => {
    expect(toActualRevision(NO_STREAM)).toBe('no_stream');
    expect(toActualRevision(-1n)).toBe('no_stream');
  });
});
