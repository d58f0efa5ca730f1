import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedPort } from './ports.js';

/**
 * A plain-http site on 127.0.0.1 that answers every path 404 (no robots.txt, no sitemap): a map or crawl started
 * on it finds nothing; spoken to in TLS (a bare host tried as https://), it fails the handshake.
 */
export async function startNotFoundSite(): Promise<{ origin: string; stop(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Not found</h1>');
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The cases of a map or crawl whose start URL cannot be read: a 502 naming the URL and the reason, and nothing
 * charged. `run` sends the operation's body; `charges` counts the organization's charges.
 */
export function describeStartFailures(
  run: (body: Record<string, unknown>) => Promise<{ status: number; body: Record<string, unknown> }>,
  charges: () => Promise<number>,
): void {
  describe('502: the start URL cannot be read (the reason, and nothing is charged)', () => {
    let down: Awaited<ReturnType<typeof startNotFoundSite>>;
    let refusedPort: number;
    beforeAll(async () => {
      down = await startNotFoundSite();
      refusedPort = await closedPort();
    });
    afterAll(async () => {
      await down?.stop();
    });

    test.each([
      [
        'a 404',
        () => ({ url: `${down.origin}/missing/` }),
        () => `The start URL ${down.origin}/missing/ could not be read: HTTP 404`,
      ],
      [
        'a refused connection',
        () => ({ url: `http://127.0.0.1:${refusedPort}/` }),
        () =>
          `The start URL http://127.0.0.1:${refusedPort}/ could not be read: its robots.txt could not be fetched (connection refused)`,
      ],
    ])('%s', async (_case, body, message) => {
      const before = await charges();
      const response = await run(body());
      expect(response.status).toBe(502);
      expect(response.body).toEqual({ error: message(), detail: { error: message() } });
      expect(await charges()).toBe(before);
    });

    test('a bare host tried as https:// on an http-only site: the reason says to give http://', async () => {
      const host = down.origin.slice('http://'.length);
      const response = await run({ url: host });
      expect(response.status).toBe(502);
      expect(response.body.error).toMatch(new RegExp(`^The start URL https://${host}/ could not be read: `));
      expect(response.body.error).toContain(
        `no scheme was given, so https:// was tried: for a site served only over http, give http://${host}/`,
      );
    });
  });
}
