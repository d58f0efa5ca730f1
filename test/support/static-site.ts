import { readFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.gif': 'image/gif',
};

/**
 * A folder served as it is on 127.0.0.1 (a directory's `index.html` for a path that ends in `/`, a redirect to it
 * without, 404 for anything missing), with extra files given as text (a robots.txt, say). Every path asked for is recorded.
 */
export class StaticSite {
  readonly requested: string[] = [];
  private server: Server | undefined;

  constructor(
    private readonly root: string,
    private readonly extra: Readonly<Record<string, string>> = {},
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    const root = path.resolve(this.root);
    this.server = createServer((request, response) => {
      const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
      this.requested.push(pathname);
      const extra = this.extra[pathname];
      if (extra !== undefined) {
        response.writeHead(200, { 'content-type': TYPES[path.extname(pathname)] ?? 'text/plain' }).end(extra);
        return;
      }
      const file = path.join(root, pathname.endsWith('/') ? `${pathname}index.html` : pathname);
      if (!file.startsWith(`${root}${path.sep}`)) {
        response.writeHead(404).end();
        return;
      }
      readFile(file).then(
        (body) =>
          response
            .writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' })
            .end(body),
        (error: NodeJS.ErrnoException) =>
          // A folder asked for without its slash: redirected, as web servers do.
          error.code === 'EISDIR'
            ? response.writeHead(301, { location: `${pathname}/` }).end()
            : response.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
