import { HostTurns } from './host-turns.js';

/** A task that ends when told to, noting when it started. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { done, open };
}

describe('HostTurns', () => {
  test('at most N at one host; other hosts never wait; the next starts when one ends', async () => {
    const turns = new HostTurns(2);
    const never = new AbortController().signal;
    const started: string[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const run = (url: string, i: number) =>
      turns.run(url, never, async () => {
        started.push(`${i}`);
        await gates[i]!.done;
      });
    const runs = [
      run('http://a.test/1', 0),
      run('http://a.test/2', 1),
      run('http://a.test/3', 2),
      run('http://b.test/', 3),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started.sort()).toEqual(['0', '1', '3']);
    gates[1]!.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started.sort()).toEqual(['0', '1', '2', '3']);
    for (const g of gates) g.open();
    await Promise.all(runs);
  });

  test('a read waiting for its turn gives up when its signal aborts, and is never started', async () => {
    const turns = new HostTurns(1);
    const first = gate();
    const controller = new AbortController();
    let secondStarted = false;
    const running = turns.run('http://a.test/1', new AbortController().signal, () => first.done);
    const waiting = turns.run('http://a.test/2', controller.signal, async () => {
      secondStarted = true;
    });
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    first.open();
    await running;
    expect(secondStarted).toBe(false);
    // The host's slot is free again.
    await expect(turns.run('http://a.test/3', new AbortController().signal, async () => 'ran')).resolves.toBe('ran');
  });
});
