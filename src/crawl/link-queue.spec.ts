import { LinkQueue } from './link-queue.js';

describe('LinkQueue', () => {
  const offer = (queue: LinkQueue, key: string, priority: number, depth = 1, anchor = '') =>
    queue.offer({ url: `https://e.com/${key}`, key, depth, priority, anchor });

  test('the most promising first, then the shallowest, then the first found', () => {
    const queue = new LinkQueue();
    offer(queue, 'late', 0, 1);
    offer(queue, 'deep', 1, 2);
    offer(queue, 'best', 2, 2);
    offer(queue, 'shallow', 1, 1);
    offer(queue, 'later', 0, 1);
    expect([1, 2, 3, 4, 5].map(() => queue.take()?.key)).toEqual(['best', 'shallow', 'deep', 'late', 'later']);
    expect(queue.take()).toBeUndefined();
  });

  test('a link offered again keeps its best priority and shallowest depth, and gathers its anchor texts', () => {
    const queue = new LinkQueue();
    offer(queue, 'page', 0.5, 2, 'Part 2');
    offer(queue, 'other', 1, 1);
    offer(queue, 'page', 2, 3, 'Database setup');
    offer(queue, 'page', 1, 1, 'Part 2');
    expect(queue.size).toBe(2);
    expect(queue.take()).toMatchObject({ key: 'page', priority: 2, depth: 1, anchors: ['Part 2', 'Database setup'] });
    expect(queue.takeAll().map((link) => link.key)).toEqual(['other']);
    expect(queue.size).toBe(0);
  });
});
