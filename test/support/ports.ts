import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';

/**
 * A port on 127.0.0.1 that was free a moment ago: bound, read and released. Whoever binds it next (a child process,
 * a private redis-server) may find it taken since, and retries on another.
 */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A port on 127.0.0.1 where nothing listens (a URL there is a refused connection): a free port left unbound. */
export const closedPort = freePort;
