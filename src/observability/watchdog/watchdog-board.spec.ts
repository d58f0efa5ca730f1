import { WatchdogBoard } from './watchdog-board.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WatchdogBoard', () => {
  test('another view of the same shared memory sees the requests in flight, longest-running first', async () => {
    const board = WatchdogBoard.create(4);
    const watcher = WatchdogBoard.attach(board.buffer);
    const search = board.enter({ method: 'POST', route: '/search', requestId: 'req-1' });
    await sleep(30);
    board.enter({ method: 'GET', route: '/orgs/:org_id/api-keys', requestId: 'req-2' });

    const seen = watcher.inflight();
    expect(seen).toEqual({
      requests: [
        { method: 'POST', route: '/search', requestId: 'req-1', runningMs: expect.any(Number) },
        { method: 'GET', route: '/orgs/:org_id/api-keys', requestId: 'req-2', runningMs: expect.any(Number) },
      ],
      untracked: 0,
    });
    expect(seen.requests[0]!.runningMs).toBeGreaterThanOrEqual(25);

    board.leave(search);
    expect(watcher.inflight().requests.map((r) => r.requestId)).toEqual(['req-2']);
  });

  test('requests beyond the slots are counted, and a slot given back is used again', () => {
    const board = WatchdogBoard.create(2);
    const slots = ['a', 'b', 'c', 'd'].map((id) => board.enter({ method: 'GET', route: '/x', requestId: id }));
    expect(slots).toEqual([0, 1, -1, -1]);
    expect(board.inflight()).toMatchObject({ untracked: 2 });
    expect(board.inflight().requests).toHaveLength(2);

    board.leave(-1);
    board.leave(slots[0]!);
    expect(board.inflight()).toMatchObject({ untracked: 1 });
    expect(board.enter({ method: 'GET', route: '/y', requestId: 'e' })).toBe(0);
    expect(
      board
        .inflight()
        .requests.map((r) => r.requestId)
        .sort(),
    ).toEqual(['b', 'e']);
  });

  test('the time since the last heartbeat grows until the next beat', async () => {
    const board = WatchdogBoard.create(1);
    const watcher = WatchdogBoard.attach(board.buffer);
    await sleep(60);
    expect(watcher.sinceLastBeatMs()).toBeGreaterThanOrEqual(50);
    board.beat();
    expect(watcher.sinceLastBeatMs()).toBeLessThan(50);
  });

  test('a buffer that is not a board is refused', () => {
    expect(() => WatchdogBoard.attach(new SharedArrayBuffer(100))).toThrow(/not a watchdog board/);
  });
});
