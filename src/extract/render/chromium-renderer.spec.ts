import { jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { type Browser, chromium } from 'playwright-core';
import { AddressPolicy } from '../../fetch/address-policy.js';
import { ChromiumRenderer, type Resolve } from './chromium-renderer.js';

const dns =
  (names: Record<string, string[]>): Resolve =>
  async (hostname) =>
    (names[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('ChromiumRenderer', () => {
  const renderer = new ChromiumRenderer(
    '/nonexistent/chromium',
    new AddressPolicy([]),
    'test-agent',
    dns({ 'rebind.test': ['93.184.216.34', '10.0.0.7'], 'public.test': ['93.184.216.34'] }),
  );
  const render = (url: string) => renderer.render(url, '<html></html>', { timeoutMs: 5000 });

  test.each([
    ['http://169.254.169.254/', /cloud metadata/],
    ['http://127.0.0.1:8080/', /loopback/],
    ['http://rebind.test/', /rebind\.test resolves to 10\.0\.0\.7/],
    ['http://metadata.google.internal/', /metadata/],
  ])('refuses %s before any browser starts', async (url, message) => {
    await expect(render(url)).rejects.toThrow(message);
  });

  test('uses only the configured executable (never a downloaded browser)', async () => {
    await expect(render('http://public.test/')).rejects.toThrow(/\/nonexistent\/chromium/);
  });
});

/** A server on 127.0.0.1 whose routes answer by path; every request is recorded. */
async function server(routes: Record<string, (response: ServerResponse) => void>) {
  const requests: string[] = [];
  const http: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests.push(request.url ?? '');
    const route = routes[new URL(request.url ?? '/', 'http://x').pathname];
    if (route) route(response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      http.closeAllConnections();
      return new Promise((resolve) => http.close(resolve));
    },
  };
}

const js = (body: string) => (response: ServerResponse) =>
  response.writeHead(200, { 'content-type': 'text/javascript' }).end(body);

const CHROMIUM = '/usr/bin/chromium';
(existsSync(CHROMIUM) ? describe : describe.skip)('ChromiumRenderer in Chromium', () => {
  let other: Awaited<ReturnType<typeof server>>;
  let site: Awaited<ReturnType<typeof server>>;
  let renderer: ChromiumRenderer;
  let launch: jest.Spied<typeof chromium.launch>;

  beforeAll(async () => {
    launch = jest.spyOn(chromium, 'launch');
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => {});
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => {});
    other = await server({ '/steal.js': js('document.documentElement.append("stolen")') });
    site = await server({
      '/app.js': js(`
        document.title = 'Built';
        fetch('/api').then((r) => r.text()).then((t) => document.getElementById('root').append(t));
        fetch('${other.origin}/steal.js').catch(() => document.documentElement.setAttribute('data-other', 'refused'));
        fetch('/to-other').catch(() => document.documentElement.setAttribute('data-redirect', 'refused'));`),
      '/api': (response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('from the api'),
      '/old.js': (response) => response.writeHead(302, { location: '/new.js' }).end(),
      '/new.js': js('document.documentElement.setAttribute("data-moved", "followed")'),
      '/to-other': (response) => response.writeHead(302, { location: `${other.origin}/steal.js` }).end(),
      '/hang.js': () => {},
      '/hang': () => {},
      '/poll.js': js(`document.title = 'Polling'; fetch('/hang');`),
    });
    renderer = new ChromiumRenderer(CHROMIUM, new AddressPolicy(['127.0.0.1']), 'test-agent', dns({}));
  });
  afterAll(async () => {
    await renderer?.onModuleDestroy();
    await site?.close();
    await other?.close();
    jest.restoreAllMocks();
  });

  const page = (scripts: string[]) =>
    `<!doctype html><title>Loading</title>${scripts.map((s) => `<script src="${s}"></script>`).join('')}` +
    '<body><div id="root"></div></body>';

  test("runs the page's scripts against its own origin only, in one browser for every render", async () => {
    for (let i = 0; i < 2; i++) {
      const rendered = await renderer.render(`${site.origin}/page.html`, page(['/app.js', '/old.js']), {
        timeoutMs: 15_000,
      });
      expect(rendered.url).toBe(`${site.origin}/page.html`);
      expect(rendered.html).toContain('<title>Built</title>');
      expect(rendered.html).toContain('<div id="root">from the api</div>');
      expect(rendered.html).toContain('data-moved="followed"');
      expect(rendered.html).toContain('data-other="refused"');
      expect(rendered.html).toContain('data-redirect="refused"');
    }
    expect(other.requests).toEqual([]);
    // The document came from the caller, not the network.
    expect(site.requests).not.toContain('/page.html');
    expect(launch).toHaveBeenCalledTimes(1);
  });

  test('a host name reaches only the address it was checked at (Chromium resolves nothing)', async () => {
    const pinned = new ChromiumRenderer(
      CHROMIUM,
      new AddressPolicy(['127.0.0.1']),
      'test-agent',
      dns({ 'app.test': ['127.0.0.1'] }),
    );
    try {
      const rendered = await pinned.render(`http://app.test:${site.port}/page.html`, page(['/app.js']), {
        timeoutMs: 15_000,
      });
      expect(rendered.html).toContain('<div id="root">from the api</div>');
    } finally {
      await pinned.onModuleDestroy();
    }
  });

  test('requests still going after the load event are cut off once the page settles', async () => {
    const started = Date.now();
    const rendered = await renderer.render(`${site.origin}/page.html`, page(['/poll.js']), { timeoutMs: 15_000 });
    expect(rendered.html).toContain('<title>Polling</title>');
    expect(Date.now() - started).toBeLessThan(6000);
  });

  test('a page that never loads is given up at the deadline', async () => {
    const started = Date.now();
    await expect(renderer.render(`${site.origin}/page.html`, page(['/hang.js']), { timeoutMs: 1500 })).rejects.toThrow(
      /timed out after 1500 ms/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('module destroy closes the browser; later renders are refused', async () => {
    const browser = (await launch.mock.results[0]!.value) as Browser;
    expect(browser.isConnected()).toBe(true);
    await renderer.onModuleDestroy();
    expect(browser.isConnected()).toBe(false);
    await expect(renderer.render(`${site.origin}/page.html`, page([]), { timeoutMs: 5000 })).rejects.toThrow(
      /shut down/,
    );
  });
});
