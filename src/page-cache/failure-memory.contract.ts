import { FAILURE_TTL_MS, type FailureMemory } from './failure-memory.js';

export interface FailureMemoryNodes {
  /** A node's memory: two calls are two nodes (they share it when the implementation is shared). */
  start(): Promise<FailureMemory>;
  /** Resolves once what `memory` was told so far has arrived (its writes are fire and forget). */
  settled(memory: FailureMemory): Promise<void>;
  /** Whether two nodes see each other's failures. */
  readonly shared: boolean;
  cleanup(): Promise<void>;
}

/** What every FailureMemory does; run by each implementation's spec. */
export function describeFailureMemoryContract(name: string, setup: () => Promise<FailureMemoryNodes>): void {
  describe(`FailureMemory (${name})`, () => {
    let nodes: FailureMemoryNodes;
    let run = 0;
    beforeAll(async () => {
      nodes = await setup();
    });
    afterAll(() => nodes.cleanup());
    const url = (path: string) => `http://failures-${++run}.test/${path}`;

    test('a failure counts within max_age and the TTL; max_age 0 never; a later success forgets it', async () => {
      const memory = await nodes.start();
      const [a, b] = [url('a'), url('b')];
      const now = Date.now();
      memory.remember(a, now - 30_000);
      await nodes.settled(memory);
      expect(await memory.failedWithin([a, b], 60, now)).toEqual(new Set([a]));
      expect(await memory.failedWithin([a], 10, now)).toEqual(new Set());
      expect(await memory.failedWithin([a], 0, now)).toEqual(new Set());
      memory.forget(a);
      await nodes.settled(memory);
      expect(await memory.failedWithin([a], 60, now)).toEqual(new Set());
    });

    test('a failure older than the TTL does not count, whatever max_age', async () => {
      const memory = await nodes.start();
      const old = url('old');
      memory.remember(old, Date.now() - FAILURE_TTL_MS - 1000);
      await nodes.settled(memory);
      expect(await memory.failedWithin([old], 86_400)).toEqual(new Set());
    });

    test('another node sees the failure (and its forgetting) when the memory is shared', async () => {
      const [one, two] = [await nodes.start(), await nodes.start()];
      const page = url('shared');
      one.remember(page);
      await nodes.settled(one);
      expect(await two.failedWithin([page], 60)).toEqual(nodes.shared ? new Set([page]) : new Set());
      two.forget(page);
      await nodes.settled(two);
      expect(await one.failedWithin([page], 60)).toEqual(nodes.shared ? new Set() : new Set([page]));
    });
  });
}
