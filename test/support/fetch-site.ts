import type { ServerResponse } from 'node:http';
import { FetchError, type FetchErrorCode } from '../../src/fetch/fetcher.port.js';
import type { HostResolver } from '../../src/fetch/safe-lookup.js';
import { FixtureSite } from './fixture-site.js';

/** What the fetcher's suites (test/fetch-*.e2e-spec.ts) share: the site they fetch from and how they read failures. */

export const USER_AGENT = 'SearchLedgerBot/0.1 (+https://example.invalid/bot)';

export async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FetchError) return error;
    throw error;
  }
  throw new Error('the fetch succeeded');
}

export async function expectFailure(promise: Promise<unknown>, code: FetchErrorCode, message?: string | RegExp) {
  const error = await failure(promise);
  expect({ code: error.code, message: error.message }).toEqual({
    code,
    message:
      message === undefined
        ? expect.any(String)
        : typeof message === 'string'
          ? message
          : expect.stringMatching(message),
  });
  return error;
}

/** A resolver for made-up names (never the network): `evil.test` → 127.0.0.1 and so on; other names do not resolve. */
export function fakeDns(names: Record<string, string[]>, calls: string[] = []): HostResolver {
  return async (hostname) => {
    calls.push(hostname);
    const addresses = names[hostname.toLowerCase()];
    if (!addresses) {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = 'ENOTFOUND';
      throw error;
    }
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

export const LATIN1_TEXT =
  'Le garçon était très ému : « Où est la fête ? » Déjà l’été, sœur — à bientôt, Noël. '.repeat(20);
export const CP1252_TEXT = 'Price: 5 € — “smart quotes” and ‘single’ … ™ • œ Š ž. '.repeat(20);

/**
 * The fixture site of the file (started before its tests, stopped after them) with the fetcher's routes: redirects of
 * every status and a loop, an echo of the request's headers, any status, slow headers and a slow body, and a body of
 * any type (`/fetch/typed?type=...&body=<base64>`).
 */
export function useFetchSite(): FixtureSite {
  const site = new FixtureSite();
  const redirect =
    (status: number, location: (url: URL) => string) => (request: { url?: string }, response: ServerResponse) => {
      const url = new URL(request.url ?? '/', site.origin);
      response.writeHead(status, { location: location(url) });
      response.end();
    };
  site
    .route(
      '/fetch/r301',
      redirect(301, () => '/fetch/r302'),
    )
    .route(
      '/fetch/r302',
      redirect(302, () => 'r307'),
    )
    .route(
      '/fetch/r307',
      redirect(307, () => `${site.origin}/fetch/r308`),
    )
    .route(
      '/fetch/r308',
      redirect(308, () => './page.html#fragment'),
    )
    .route(
      '/fetch/loop',
      redirect(302, (url) => `/fetch/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}`),
    )
    .route(
      '/fetch/to',
      redirect(302, (url) => url.searchParams.get('url') ?? '/'),
    )
    .route('/fetch/headers', (request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(request.headers));
    })
    .route('/fetch/status', (request, response) => {
      const status = Number(new URL(request.url ?? '/', site.origin).searchParams.get('code'));
      response.writeHead(status, { 'content-type': 'text/html' });
      response.end(`<h1>${status}</h1>`);
    })
    .route('/fetch/slow-headers', (_request, response) => {
      const timer = setTimeout(() => response.end('late'), 5000);
      response.on('close', () => clearTimeout(timer));
    })
    .route('/fetch/slow-body', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.write('<p>a start');
      const timer = setTimeout(() => response.end('</p>'), 5000);
      response.on('close', () => clearTimeout(timer));
    })
    .route('/fetch/typed', (request, response) => {
      const url = new URL(request.url ?? '/', site.origin);
      const body = Buffer.from(url.searchParams.get('body') ?? '', 'base64');
      const headers: Record<string, string> = {};
      const type = url.searchParams.get('type');
      if (type !== null) headers['content-type'] = type;
      response.writeHead(200, headers);
      response.end(body);
    });
  beforeAll(async () => {
    await site.start();
  });
  afterAll(async () => {
    await site.stop();
  });
  return site;
}

/** Requests `site` has seen for paths under `prefix` since `from`. */
export const requestsTo = (site: FixtureSite, prefix: string, from = 0) =>
  site.requests.slice(from).filter((r) => r.path.startsWith(prefix));
