import { BackendPriority } from './backend-priority.js';

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BackendPriority', () => {
  test('on one backend, background work waits while a search runs and starts after it', async () => {
    const priority = new BackendPriority(true);
    const order: string[] = [];
    const search = gate();
    const searching = priority.foreground(async () => {
      order.push('search starts');
      await search.promise;
      order.push('search ends');
    });
    const learning = priority.background(async () => order.push('learning'));
    await sleep(30);
    expect(order).toEqual(['search starts']);
    search.open();
    await Promise.all([searching, learning]);
    expect(order).toEqual(['search starts', 'search ends', 'learning']);
  });

  test('quietFor: no search yet, or none for that long; not while one runs or soon after one ended', async () => {
    const priority = new BackendPriority(true);
    expect(priority.quietFor(1000)).toBe(true);
    const search = gate();
    const searching = priority.foreground(() => search.promise);
    expect(priority.quietFor(0)).toBe(false);
    search.open();
    await searching;
    expect(priority.quietFor(1000)).toBe(false);
    await sleep(40);
    expect(priority.quietFor(30)).toBe(true);
    expect(priority.quietFor(1000)).toBe(false);
  });

  test('one background statement at a time: the second waits for the first', async () => {
    const priority = new BackendPriority(true);
    const order: string[] = [];
    const first = gate();
    const a = priority.background(async () => {
      order.push('a starts');
      await first.promise;
      order.push('a ends');
    });
    const b = priority.background(async () => order.push('b'));
    await sleep(30);
    expect(order).toEqual(['a starts']);
    first.open();
    await Promise.all([a, b]);
    expect(order).toEqual(['a starts', 'a ends', 'b']);
  });

  test('a search that arrives while background work waits goes first', async () => {
    const priority = new BackendPriority(true);
    const order: string[] = [];
    const first = gate();
    const searching = priority.foreground(async () => {
      await first.promise;
      order.push('first search');
    });
    const writing = priority.background(async () => order.push('write'));
    const second = priority.foreground(async () => order.push('second search'));
    first.open();
    await Promise.all([searching, writing, second]);
    expect(order).toEqual(['second search', 'first search', 'write']);
  });

  test('maxWaitMs: work that must progress runs under a steady search load', async () => {
    const priority = new BackendPriority(true);
    const search = gate();
    const searching = priority.foreground(() => search.promise);
    let wrote = false;
    await priority.background(async () => (wrote = true), 20);
    expect(wrote).toBe(true);
    search.open();
    await searching;
  });

  test('with a backend per connection nobody waits', async () => {
    const priority = new BackendPriority(false);
    const search = gate();
    const searching = priority.foreground(() => search.promise);
    let learned = false;
    await priority.background(async () => (learned = true));
    expect(learned).toBe(true);
    search.open();
    await searching;
  });

  test('a failing search or background statement does not leave the backend taken', async () => {
    const priority = new BackendPriority(true);
    await expect(priority.foreground(() => Promise.reject(new Error('search failed')))).rejects.toThrow();
    await expect(priority.background(() => Promise.reject(new Error('write failed')))).rejects.toThrow();
    await expect(priority.background(async () => 'ran')).resolves.toBe('ran');
  });
});
