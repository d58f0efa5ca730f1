import { HostScheduler } from './host-scheduler.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('HostScheduler', () => {
  it('runs at most N tasks per host, in FIFO order', async () => {
    const scheduler = new HostScheduler({ maxConcurrentPerHost: 2 });
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      scheduler.run('http://a.test/x', async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await sleep(5);
    expect(started).toEqual([0, 1]);
    expect(scheduler.inFlight('http://a.test/y')).toBe(2);
    gates[1]!.resolve();
    await sleep(5);
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(scheduler.inFlight('http://a.test/')).toBe(0);
  });

  it('lets the hosts concurrencyFor names take more tasks at once; every other host keeps the default', async () => {
    const scheduler = new HostScheduler({
      maxConcurrentPerHost: 2,
      concurrencyFor: (hostname) => (hostname === 'own.test' ? 5 : null),
    });
    const gate = deferred();
    const runs = ['own.test:8080', 'other.test'].flatMap((host) =>
      Array.from({ length: 6 }, () => scheduler.run(`http://${host}/`, () => gate.promise)),
    );
    await sleep(5);
    expect(scheduler.inFlight('http://own.test:8080/')).toBe(5);
    expect(scheduler.inFlight('http://other.test/')).toBe(2);
    gate.resolve();
    await Promise.all(runs);
  });

  it('passes on a task failure and frees the slot', async () => {
    const scheduler = new HostScheduler({ maxConcurrentPerHost: 1 });
    await expect(scheduler.run('http://a.test/', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(scheduler.run('http://a.test/', () => Promise.resolve('ok'))).resolves.toBe('ok');
  });

  it('drops a waiting task whose signal aborts, without running it', async () => {
    const scheduler = new HostScheduler({ maxConcurrentPerHost: 1 });
    const gate = deferred();
    const first = scheduler.run('http://a.test/', () => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const second = scheduler.run(
      'http://a.test/',
      async () => {
        ran = true;
      },
      { signal: controller.signal },
    );
    controller.abort(new Error('gave up'));
    await expect(second).rejects.toThrow('gave up');
    gate.resolve();
    await first;
    expect(ran).toBe(false);
    await expect(scheduler.run('http://a.test/', async () => 1, { signal: controller.signal })).rejects.toThrow(
      'gave up',
    );
  });

  it('spaces starts at one host by the larger of the default and the given delay', async () => {
    const scheduler = new HostScheduler({ maxConcurrentPerHost: 4, delayMs: 30 });
    const starts: number[] = [];
    const task = async () => void starts.push(Date.now());
    await Promise.all([
      scheduler.run('http://a.test/', task),
      scheduler.run('http://a.test/', task, { delayMs: 60 }),
      scheduler.run('http://a.test/', task, { delayMs: 10 }),
    ]);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(55);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(25);
    // Another host is not held back.
    const before = Date.now();
    await scheduler.run('http://b.test/', task);
    expect(Date.now() - before).toBeLessThan(25);
  });
});
