import type { IncomingHttpHeaders } from 'node:http';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent } from 'undici';
import { type AddressPolicy, bareHost } from '../../fetch/address-policy.js';
import { portOfUrl } from '../../config/allow-entry.js';
import { readBody } from '../../fetch/read-body.js';
import { createSafeConnector } from '../../fetch/safe-lookup.js';

export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface OriginRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | null;
}

export interface OriginResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export interface PinnedOriginLimits {
  /** Largest decompressed body of one response. */
  readonly maxResponseBytes: number;
  /** Largest decompressed total of every response of the page. */
  readonly maxTotalBytes: number;
  /** Most requests the page may make. */
  readonly maxRequests: number;
  readonly maxRedirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Request headers not forwarded: hop-by-hop, computed by undici, conditional (a 304 has no body to hand over). */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'accept-encoding',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
  'if-range',
]);
/** Response headers not handed to the browser: the body it gets is decompressed and complete. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-encoding',
  'content-length',
]);

/** A request the page may not make: another origin, or past its limits. The browser gets a blocked request. */
export class RefusedRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedRequestError';
  }
}

/**
 * The network of one rendered page: its own origin only (same scheme, host and port), over connections to the
 * addresses its host resolved to once, when they were checked against the SSRF rules (`pin`). Every connection goes
 * through the fetcher's safe connector as well, which checks the address it connects to and the peer once more.
 * Same-origin redirects are followed here (the browser would send a redirect's next hop past the route handler);
 * a redirect to another origin is refused. Responses are bounded in size, count and time (`signal`).
 */
export class PinnedOrigin {
  private readonly agent: Agent;
  private requests = 0;
  private bytes = 0;
  private closed = false;

  private constructor(
    readonly origin: URL,
    private readonly limits: PinnedOriginLimits,
    private readonly signal: AbortSignal,
    policy: AddressPolicy,
    addresses: readonly LookupAddress[],
    connectTimeoutMs: number,
  ) {
    const host = bareHost(origin.hostname);
    this.agent = new Agent({
      connect: createSafeConnector({
        policy,
        // Only the page's host resolves, and only to its checked addresses: no second DNS answer (rebinding).
        resolve: async (hostname) => (bareHost(hostname) === host ? addresses : []),
        connectTimeoutMs,
      }),
      connections: 6,
      keepAliveTimeout: 2_000,
    });
  }

  /**
   * Checks the page's host against the SSRF rules and resolves it (an IP literal as it is); throws the refusal,
   * before anything is sent, when the host or any of its addresses is refused.
   */
  static async pin(
    url: URL,
    policy: AddressPolicy,
    resolve: Resolve,
    options: { limits: PinnedOriginLimits; signal: AbortSignal; connectTimeoutMs: number },
  ): Promise<PinnedOrigin> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new RefusedRequestError(`only http and https pages are rendered, not ${url.protocol.replace(/:$/, '')}`);
    const host = bareHost(url.hostname);
    const port = portOfUrl(url);
    const refusal = policy.checkHost(host, port);
    if (refusal) throw refusal;
    let addresses: readonly LookupAddress[];
    if (isIP(host)) {
      addresses = [{ address: host, family: isIP(host) }];
    } else {
      addresses = await resolve(host);
      if (addresses.length === 0) throw new Error(`could not resolve ${host}`);
      for (const { address } of addresses) {
        const refused = policy.checkAddress(address, host, port);
        if (refused) throw refused;
      }
    }
    return new PinnedOrigin(
      new URL(url.origin),
      options.limits,
      options.signal,
      policy,
      addresses,
      options.connectTimeoutMs,
    );
  }

  /** Whether `url` is of the page's origin. */
  allows(url: string): boolean {
    try {
      return new URL(url).origin === this.origin.origin;
    } catch {
      return false;
    }
  }

  async fetch(request: OriginRequest): Promise<OriginResponse> {
    let current = new URL(request.url);
    let method = request.method.toUpperCase();
    let body = request.body;
    const headers = forwardedHeaders(request.headers);
    for (let hop = 0; ; hop++) {
      if (current.origin !== this.origin.origin)
        throw new RefusedRequestError(`${current.origin} is not the page's origin`);
      if (++this.requests > this.limits.maxRequests)
        throw new RefusedRequestError(`more than ${this.limits.maxRequests} requests`);
      const response = await this.agent.request({
        origin: current.origin,
        path: `${current.pathname}${current.search}`,
        method,
        headers: { ...headers, 'accept-encoding': 'gzip, deflate, br' },
        body: body ?? undefined,
        signal: this.signal,
      });
      const location = response.headers['location'];
      if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
        response.body.on('error', () => {});
        response.body.destroy();
        if (hop >= this.limits.maxRedirects)
          throw new RefusedRequestError(`more than ${this.limits.maxRedirects} redirects`);
        current = new URL(location, current);
        current.hash = '';
        if (response.statusCode === 303 || (response.statusCode <= 302 && method === 'POST')) {
          method = 'GET';
          body = null;
          delete headers['content-type'];
        }
        continue;
      }
      const encoding = response.headers['content-encoding'];
      const maxBytes = Math.min(this.limits.maxResponseBytes, this.limits.maxTotalBytes - this.bytes);
      const content = await readBody(
        response.body,
        Array.isArray(encoding) ? encoding.join(', ') : encoding,
        Math.max(0, maxBytes),
        this.signal,
      );
      this.bytes += content.length;
      return { status: response.statusCode, headers: responseHeaders(response.headers), body: content };
    }
  }

  /** Ends the page's connections and the requests still going. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.agent.destroy().catch(() => {});
  }
}

function forwardedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    // HTTP/2 pseudo-headers (`:authority`) are the browser's, not the request's.
    if (key.startsWith(':') || DROPPED_REQUEST_HEADERS.has(key)) continue;
    forwarded[key] = value;
  }
  return forwarded;
}

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(key)) continue;
    // Playwright splits a multi-valued Set-Cookie on newlines; every other header joins with commas.
    flat[key] = Array.isArray(value) ? value.join(key === 'set-cookie' ? '\n' : ', ') : value;
  }
  return flat;
}
