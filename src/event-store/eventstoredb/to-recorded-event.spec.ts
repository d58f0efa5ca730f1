import type { EsdbRecord } from './to-recorded-event.js';
import { UNKNOWN_POSITION, UnrepresentableEventError, isKnownPosition, toRecordedEvent } from './to-recorded-event.js';

const created = new Date('2024-05-01T10:00:00Z');

function record(overrides: Partial<EsdbRecord> = {}): EsdbRecord {
  return {
    streamId: 'account-1',
    id: '0b4a6f0e-3f2e-4c2a-9a57-0f1f1d6f7a10',
    revision: 3n,
    type: 'CreditsGranted',
    created,
    data: { credits: 10 },
    metadata: { schema_version: 1 },
    position: { commit: 1200n, prepare: 1100n },
    ...overrides,
  };
}

describe('toRecordedEvent', () => {
  test('maps every field of a JSON event', () => {
    expect(toRecordedEvent(record())).toEqual({
      id: '0b4a6f0e-3f2e-4c2a-9a57-0f1f1d6f7a10',
      streamId: 'account-1',
      revision: 3n,
      position: { commit: 1200n, prepare: 1100n },
      type: 'CreditsGranted',
      data: { credits: 10 },
      metadata: { schema_version: 1 },
      created,
    });
  });

  test('an event without a position gets the unknown position', () => {
    const { position: _omitted, ...withoutPosition } = record();
    expect(toRecordedEvent(withoutPosition).position).toEqual(UNKNOWN_POSITION);
    expect(UNKNOWN_POSITION).toEqual({ commit: -1n, prepare: -1n });
  });

  test('the position servers before 22.6 send on stream reads (ulong.MaxValue) is the unknown position', () => {
    const max = 18446744073709551615n;
    expect(toRecordedEvent(record({ position: { commit: max, prepare: max } })).position).toEqual(UNKNOWN_POSITION);
  });

  test('absent metadata reads as an empty object', () => {
    expect(toRecordedEvent(record({ metadata: undefined })).metadata).toEqual({});
    expect(toRecordedEvent(record({ metadata: new Uint8Array() })).metadata).toEqual({});
  });

  test('a binary payload holding a JSON object is decoded', () => {
    const bytes = new TextEncoder().encode('{"credits":5}');
    const mapped = toRecordedEvent(record({ data: bytes, metadata: new TextEncoder().encode('{"by":"cli"}') }));
    expect(mapped.data).toEqual({ credits: 5 });
    expect(mapped.metadata).toEqual({ by: 'cli' });
  });

  test.each([
    ['binary data that is not JSON', new Uint8Array([0xff, 0x00, 0x13])],
    ['a JSON array', [1, 2]],
    ['a JSON string (what the client returns for malformed JSON)', '{not json'],
    ['null', null],
  ])('data that is %s cannot be represented', (_label, data) => {
    expect(() => toRecordedEvent(record({ data }))).toThrow(UnrepresentableEventError);
  });

  test('metadata that is not a JSON object cannot be represented', () => {
    expect(() => toRecordedEvent(record({ metadata: 'text' }))).toThrow(/metadata is not a JSON object/);
  });
});

describe('isKnownPosition', () => {
  test('real positions are known; absent, unknown and the server placeholder are not', () => {
    expect(isKnownPosition({ commit: 0n, prepare: 0n })).toBe(true);
    expect(isKnownPosition({ commit: 1200n, prepare: 1100n })).toBe(true);
    expect(isKnownPosition(undefined)).toBe(false);
    expect(isKnownPosition(UNKNOWN_POSITION)).toBe(false);
    expect(isKnownPosition({ commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n })).toBe(false);
  });
});
