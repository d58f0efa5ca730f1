import { createHmac, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the receiver answers one request: a status, or no answer at all (it stalls until the connection closes). */
export type ReceiverAnswer = number | 'stall';

export interface ReceivedWebhook {
  readonly eventId: string;
  readonly body: Record<string, unknown>;
  readonly status: ReceiverAnswer;
}

/** Tolerance for the signature's timestamp, as Stripe's libraries default to. */
const TOLERANCE_S = 300;

/**
 * A customer's webhook endpoint on 127.0.0.1: it verifies `Search-Ledger-Signature` as the docs tell receivers to
 * (recompute the HMAC-SHA256 of "<t>.<raw body>" with the endpoint's secret, compare in constant time, refuse a
 * timestamp older than 5 minutes) and drops repeats of an event id it already accepted.
 */
export class WebhookReceiver {
  secret = '';
  /** Every request that passed the signature check, in arrival order. */
  readonly received: ReceivedWebhook[] = [];
  /** Requests refused for their signature. */
  readonly refused: string[] = [];
  /** Event ids accepted once (the receiver's dedup). */
  readonly accepted = new Set<string>();
  duplicates = 0;
  private stalled: ServerResponse[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly answer: (request: number) => ReceiverAnswer,
  ) {}

  static async start(answer: (request: number) => ReceiverAnswer = () => 200): Promise<WebhookReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`, answer);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void receiver.handle(req, res));
    return receiver;
  }

  async stop(): Promise<void> {
    for (const res of this.stalled) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const problem = verify(this.secret, String(req.headers['search-ledger-signature'] ?? ''), raw);
    if (problem) {
      this.refused.push(problem);
      res.writeHead(400).end(problem);
      return;
    }
    const eventId = String(req.headers['search-ledger-event-id'] ?? '');
    const status = this.answer(this.received.length);
    this.received.push({ eventId, body: JSON.parse(raw) as Record<string, unknown>, status });
    if (status === 'stall') {
      this.stalled.push(res);
      return;
    }
    if (status >= 200 && status < 300) {
      if (this.accepted.has(eventId)) this.duplicates++;
      this.accepted.add(eventId);
    }
    res.writeHead(status).end();
  }
}

/** A receiver's check of the signature header; null when it holds. */
export function verify(secret: string, header: string, rawBody: string, now = Date.now()): string | null {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1) return 'malformed signature header';
  if (Math.abs(now / 1000 - t) > TOLERANCE_S) return 'timestamp too old';
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature mismatch';
  return null;
}
