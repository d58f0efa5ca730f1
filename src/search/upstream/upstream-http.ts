import { BadGatewayException, Logger } from '@nestjs/common';
import { Agent, errors, request } from 'undici';
import { errorBody } from '../../http/error-body.js';
import { ShapeError } from './json-shape.js';

/** The most an upstream answer may weigh (decoded JSON text). */
const MAX_BYTES = 8 * 1024 * 1024;
/** Connecting gets at most this long, within the total budget. */
const MAX_CONNECT_MS = 5000;

const logger = new Logger('Upstream');

/**
 * A failed or timed-out upstream call, as the client sees it: 502 with the spec's error body, which the metering
 * pipeline bills nothing for. The message names the upstream and what went wrong, never a URL or a key.
 */
export function upstreamFailure(upstream: string, reason: string): BadGatewayException {
  logger.warn(`upstream ${upstream} failed: ${reason}`);
  return new BadGatewayException(errorBody(`The upstream search backend failed: ${upstream} ${reason}.`));
}

/** Runs a mapping of an upstream answer; a shape the mapping cannot read is the upstream's failure (502). */
export function readAnswer<T>(upstream: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ShapeError)
      throw upstreamFailure(upstream, `answered in an unexpected shape (${error.message})`);
    throw error;
  }
}

/**
 * GET of JSON from an operator-configured upstream (SearXNG, Brave, SerpAPI). Not the SSRF-guarded fetcher: these
 * addresses come from the operator, not from callers, and often sit on a private network. Each call has a total time
 * budget (connect, headers and body together) and a size cap; any failure — refused connection, time-out, non-2xx
 * status, oversized or malformed body — is a BadGatewayException, never an empty answer.
 */
export class UpstreamHttp {
  private readonly agent: Agent;

  constructor(
    readonly upstream: string,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({
      connect: { timeout: Math.min(timeoutMs, MAX_CONNECT_MS) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4000,
    });
  }

  async getJson(url: URL, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<unknown> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([deadline, signal]) : deadline;
    try {
      const response = await request(url, {
        method: 'GET',
        headers: { accept: 'application/json', 'accept-encoding': 'identity', ...headers },
        signal: combined,
        dispatcher: this.agent,
      });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        await response.body.dump().catch(() => {});
        throw upstreamFailure(this.upstream, `answered HTTP ${response.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_BYTES) {
          response.body.destroy();
          throw upstreamFailure(this.upstream, `answered with more than ${MAX_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw upstreamFailure(this.upstream, 'answered with malformed JSON');
      }
    } catch (error) {
      if (error instanceof BadGatewayException) throw error;
      if (signal?.aborted && !deadline.aborted) throw signal.reason ?? error;
      throw upstreamFailure(this.upstream, describe(error, deadline.aborted, this.timeoutMs));
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function describe(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (
    timedOut ||
    error instanceof errors.ConnectTimeoutError ||
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError
  ) {
    return `did not answer within ${timeoutMs / 1000} s`;
  }
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `could not be reached (${code})` : 'could not be reached';
}
