import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A port on 127.0.0.1 where nothing listens (a start URL there is a refused connection). */
export async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

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
