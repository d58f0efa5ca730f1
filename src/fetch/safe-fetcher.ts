import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import { AddressPolicy } from './address-policy.js';
import { portOfUrl } from '../config/allow-entry.js';
import {
  isAcceptedMediaType,
  isGzipFileMediaType,
  isUntypedMediaType,
  parseContentType,
  sniffMediaType,
} from './content-type.js';
import { decodeBody, detectCharset } from './decode-body.js';
import { FetchDeadlineError, formatBytes, toFetchError } from './fetch-errors.js';
import { type FetchedResource, FetchError, type FetchOptions, type Fetcher } from './fetcher.port.js';
import { readBody } from './read-body.js';
import { createSafeConnector, type HostResolver } from './safe-lookup.js';
import { TargetScreen } from './target-screen.js';

export const DEFAULT_TIMEOUT_MS = 15_000;
export const MAX_TIMEOUT_MS = 150_000;
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf;q=0.9,text/plain;q=0.8,application/json;q=0.8,*/*;q=0.5';
/** Request headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export interface SafeFetcherOptions {
  readonly userAgent: string;
  /** Hosts, IP addresses or CIDRs reachable despite the SSRF rules (config.fetchAllowHosts). */
  readonly allowHosts?: readonly string[];
  /** DNS resolution (all addresses of a name); dns.lookup by default. Tests inject their own. */
  readonly lookup?: HostResolver;
  readonly connectTimeoutMs?: number;
  /** Longest wait for the response headers of one hop. */
  readonly headersTimeoutMs?: number;
  /** Longest silence between two chunks of a body. */
  readonly bodyTimeoutMs?: number;
  /** Pooled connections per origin. */
  readonly connectionsPerOrigin?: number;
  readonly keepAliveTimeoutMs?: number;
}

/**
 * The fetcher everything that touches the web goes through: one pooled undici Agent whose every connection passes
 * the SSRF rules (see safe-lookup.ts), manual redirects checked hop by hop, a total deadline, a cap on the
 * decompressed size, gzip/deflate/br, charset detection, and an allow-list of content types.
 */
export class SafeFetcher implements Fetcher {
  readonly policy: AddressPolicy;
  /** The same rules and resolver, for judging a URL a caller names before it is fetched. */
  readonly screen: TargetScreen;
  private readonly agent: Agent;
  private readonly userAgent: string;

  constructor(options: SafeFetcherOptions) {
    this.policy = new AddressPolicy(options.allowHosts ?? []);
    this.screen = new TargetScreen(this.policy, options.lookup);
    this.userAgent = options.userAgent;
    this.agent = new Agent({
      connect: createSafeConnector({
        policy: this.policy,
        resolve: options.lookup,
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      }),
      headersTimeout: options.headersTimeoutMs ?? 30_000,
      bodyTimeout: options.bodyTimeoutMs ?? 30_000,
      connections: options.connectionsPerOrigin ?? 16,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
      keepAliveMaxTimeout: 60_000,
    });
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchedResource> {
    const timeoutMs = Math.min(Math.max(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1), MAX_TIMEOUT_MS);
    const maxBytes = Math.max(options.maxBytes ?? DEFAULT_MAX_BYTES, 0);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new FetchDeadlineError(timeoutMs, false)), timeoutMs);
    const onCallerAbort = () => controller.abort(new FetchDeadlineError(timeoutMs, true));
    if (options.signal?.aborted) onCallerAbort();
    else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const hop = { url };
    try {
      return await this.follow(url, options, { maxBytes, timeoutMs }, controller.signal, hop);
    } catch (error) {
      const reason: unknown = controller.signal.aborted ? controller.signal.reason : undefined;
      throw toFetchError(reason instanceof FetchDeadlineError ? reason : error, url, maxBytes, hop.url);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Closes the pooled connections (on application shutdown). */
  async close(): Promise<void> {
    await this.agent.destroy();
  }

  private async follow(
    requestedUrl: string,
    options: FetchOptions,
    { maxBytes, timeoutMs }: { maxBytes: number; timeoutMs: number },
    signal: AbortSignal,
    hop: { url: string },
  ): Promise<FetchedResource> {
    const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    const redirects: string[] = [];
    let current = this.parseTarget(requestedUrl, requestedUrl);
    const firstOrigin = current.origin;
    for (;;) {
      hop.url = current.href;
      const refusal = this.policy.checkHost(current.hostname, portOfUrl(current));
      if (refusal) throw new FetchError('blocked_address', refusal.message, requestedUrl);
      const response = await this.agent.request({
        origin: current.origin,
        path: `${current.pathname}${current.search}`,
        method: 'GET',
        headers: this.requestHeaders(options, current.origin === firstOrigin),
        signal,
        // The total deadline governs; these only keep undici's shorter defaults from firing first.
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const headers = flattenHeaders(response.headers);
      const location = headers['location'];
      if (REDIRECT_STATUSES.has(response.statusCode) && location) {
        await response.body.dump().catch(() => {});
        if (redirects.length >= maxRedirects)
          throw new FetchError(
            'too_many_redirects',
            `Failed to fetch url: more than ${maxRedirects} redirect${maxRedirects === 1 ? '' : 's'}`,
            requestedUrl,
          );
        current = this.parseTarget(location, requestedUrl, current);
        redirects.push(current.href);
        continue;
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        await response.body.dump().catch(() => {});
        throw new FetchError(
          'http_error',
          `Failed to fetch url: HTTP ${response.statusCode}`,
          requestedUrl,
          response.statusCode,
        );
      }
      const declared = parseContentType(headers['content-type']);
      const gzipFile = declared !== null && isGzipFileMediaType(declared.mediaType);
      if (
        declared &&
        !gzipFile &&
        !isAcceptedMediaType(declared.mediaType) &&
        !isUntypedMediaType(declared.mediaType)
      ) {
        discard(response.body);
        throw unsupported(declared.mediaType, requestedUrl);
      }
      const length = Number(headers['content-length']);
      if (!headers['content-encoding'] && Number.isFinite(length) && length > maxBytes) {
        discard(response.body);
        throw new FetchError(
          'too_large',
          `Failed to fetch url: the response is larger than ${formatBytes(maxBytes)}`,
          requestedUrl,
        );
      }
      const encoding = gzipFile
        ? [headers['content-encoding'], 'gzip'].filter(Boolean).join(', ')
        : headers['content-encoding'];
      const body = await readBody(response.body, encoding, maxBytes, signal);
      let mediaType = declared?.mediaType ?? null;
      if (mediaType === null || isUntypedMediaType(mediaType) || gzipFile) {
        const sniffed = sniffMediaType(body, mediaType === null);
        if (!sniffed) throw unsupported(mediaType ?? 'unknown', requestedUrl);
        mediaType = sniffed;
      }
      const charset = detectCharset(body, mediaType, declared?.charset ?? null);
      return new Resource(
        requestedUrl,
        current.href,
        response.statusCode,
        headers,
        mediaType,
        charset,
        body,
        redirects,
      );
    }
  }

  /** A URL the fetcher may request: absolute (or relative to `base`), http(s), no credentials; the fragment dropped. */
  private parseTarget(raw: string, requestedUrl: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new FetchError('invalid_url', 'Failed to fetch url: invalid URL', requestedUrl);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new FetchError(
        'invalid_url',
        `Failed to fetch url: only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`,
        requestedUrl,
      );
    if (url.username || url.password)
      throw new FetchError('invalid_url', 'Refused: URLs with credentials are not fetched', requestedUrl);
    url.hash = '';
    return url;
  }

  private requestHeaders(options: FetchOptions, sameOrigin: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: options.accept ?? DEFAULT_ACCEPT,
      'accept-encoding': 'gzip, deflate, br',
      'accept-language': 'en-US,en;q=0.9,*;q=0.5',
    };
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      const key = name.toLowerCase();
      if (!sameOrigin && CREDENTIAL_HEADERS.includes(key)) continue;
      headers[key] = value;
    }
    return headers;
  }
}

/** Stops a body we will not read (undici then aborts it, and reports that as an error nobody needs). */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

function unsupported(mediaType: string, url: string): FetchError {
  return new FetchError('unsupported_content_type', `Failed to fetch url: unsupported content type ${mediaType}`, url);
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

class Resource implements FetchedResource {
  private decoded: string | undefined;

  constructor(
    readonly requestedUrl: string,
    readonly url: string,
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly contentType: string,
    readonly charset: string | null,
    readonly body: Buffer,
    readonly redirects: readonly string[],
  ) {}

  text(): string {
    this.decoded ??= decodeBody(this.body, this.charset);
    return this.decoded;
  }
}
