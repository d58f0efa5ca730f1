import { END, START as ESDB_START } from '@eventstore/db-client';
import { START } from '../event-store.port.js';
import {
  type AllRecord,
  isUserEvent,
  lastUserPositionBefore,
  toReadPosition,
  userEventsAfter,
} from './all-stream-selection.js';

let nextId = 0;
function at(commit: bigint, prepare: bigint, streamId = 'order-1', type = 'OrderPlaced'): AllRecord {
  nextId += 1;
  return {
    streamId,
    id: `00000000-0000-4000-8000-${String(nextId).padStart(12, '0')}`,
    revision: 0n,
    type,
    created: new Date(0),
    data: {},
    metadata: undefined,
    position: { commit, prepare },
  };
}

describe('isUserEvent', () => {
  test('system event types and system streams are not user events', () => {
    expect(isUserEvent({ streamId: 'order-1', type: 'OrderPlaced' })).toBe(true);
    expect(isUserEvent({ streamId: 'order-1', type: '$metadata' })).toBe(false);
    expect(isUserEvent({ streamId: '$stats-127.0.0.1:2113', type: 'statistics' })).toBe(false);
    expect(isUserEvent({ streamId: 'shop$orders', type: 'Order$Placed' })).toBe(true);
  });
});

describe('userEventsAfter (forward page of $all)', () => {
  const page = [at(100n, 100n), at(200n, 200n), at(300n, 250n), at(300n, 300n), at(400n, 400n)];

  test('the event at the exclusive lower bound is dropped (the server reads from it inclusively)', () => {
    expect(userEventsAfter(page, { commit: 100n, prepare: 100n }, 10).map((e) => e.position)).toEqual([
      { commit: 200n, prepare: 200n },
      { commit: 300n, prepare: 250n },
      { commit: 300n, prepare: 300n },
      { commit: 400n, prepare: 400n },
    ]);
  });

  test('positions compare on commit, then prepare', () => {
    const after = userEventsAfter(page, { commit: 300n, prepare: 250n }, 10);
    expect(after.map((e) => e.position.prepare)).toEqual([300n, 400n]);
  });

  test('from START everything is after', () => {
    expect(userEventsAfter(page, START, 10)).toHaveLength(5);
  });

  test('system events are left out and do not count against the limit', () => {
    const mixed = [
      at(100n, 100n, '$$order-1', '$metadata'),
      at(200n, 200n),
      at(300n, 300n, '$et-OrderPlaced', '$>'),
      at(400n, 400n),
      at(500n, 500n),
    ];
    expect(userEventsAfter(mixed, START, 2).map((e) => e.position.commit)).toEqual([200n, 400n]);
  });

  test('the result is mapped to recorded events', () => {
    const [first] = userEventsAfter([at(700n, 650n, 'order-9', 'OrderShipped')], START, 1);
    expect(first).toMatchObject({ streamId: 'order-9', type: 'OrderShipped', metadata: {}, revision: 0n });
  });
});

describe('lastUserPositionBefore (backward page of $all)', () => {
  test('from END the first user event of the page is the head', () => {
    const page = [at(500n, 500n, '$stats-1', '$statsCollected'), at(400n, 400n), at(300n, 300n)];
    expect(lastUserPositionBefore(page, END)).toEqual({ commit: 400n, prepare: 400n });
  });

  test('records at or after the bound are ignored (a backward read may include its start)', () => {
    const page = [at(400n, 400n), at(300n, 300n)];
    expect(lastUserPositionBefore(page, { commit: 400n, prepare: 400n })).toEqual({ commit: 300n, prepare: 300n });
  });

  test('a page of only system events has no head', () => {
    expect(lastUserPositionBefore([at(9n, 9n, '$settings', '$metadata')], END)).toBeUndefined();
    expect(lastUserPositionBefore([], END)).toBeUndefined();
  });
});

describe('toReadPosition', () => {
  test('START and the unknown position start at the beginning of $all', () => {
    expect(toReadPosition(START)).toBe(ESDB_START);
    expect(toReadPosition({ commit: -1n, prepare: -1n })).toBe(ESDB_START);
  });

  test('a real position is passed on', () => {
    expect(toReadPosition({ commit: 42n, prepare: 40n })).toEqual({ commit: 42n, prepare: 40n });
  });
});
