import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';

export { ErrorCode };

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

export function jsonRpcError(
  code: number,
  message: string,
  id: string | number | null = null,
  data?: unknown,
): JsonRpcErrorBody {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** The id of a single JSON-RPC request, for echoing it in an error; null for a batch or a notification. */
export function requestIdOf(body: unknown): string | number | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

/**
 * Why a parsed body is not a JSON-RPC 2.0 message (or a non-empty batch of them), or null when it is. The SDK's own
 * message schema decides; the SDK would answer such bodies with -32700, JSON-RPC 2.0 says -32600 (Invalid Request).
 */
export function invalidRequestReason(body: unknown): string | null {
  if (Array.isArray(body)) {
    if (body.length === 0) return 'Invalid Request: an empty batch';
    for (const [i, message] of body.entries()) {
      const reason = messageProblem(message);
      if (reason) return `Invalid Request: batch entry ${i}: ${reason}`;
    }
    return null;
  }
  const reason = messageProblem(body);
  return reason ? `Invalid Request: ${reason}` : null;
}

function messageProblem(message: unknown): string | null {
  if (JSONRPCMessageSchema.safeParse(message).success) return null;
  if (!message || typeof message !== 'object' || Array.isArray(message)) return 'not a JSON-RPC 2.0 message object';
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('method' in m && typeof m.method !== 'string') return '"method" must be a string';
  if ('id' in m && !(typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id))))
    return '"id" must be a string or an integer';
  if ('params' in m && (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params)))
    return '"params" must be an object';
  return 'not a valid JSON-RPC 2.0 request, notification or response';
}

/**
 * The API key of an MCP request: `Authorization: Bearer <key>`, else `x-api-key`, else the `tavilyApiKey` query
 * parameter that remote Tavily MCP clients use. A non-Bearer Authorization header is no key (as in REST).
 */
export function mcpApiKey(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.trim() !== '')
    return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? null;
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const query = (request.query ?? {}) as Record<string, unknown>;
  return typeof query.tavilyApiKey === 'string' && query.tavilyApiKey.trim() !== '' ? query.tavilyApiKey.trim() : null;
}

/**
 * Whether the client prefers an SSE stream to a plain JSON response: text/event-stream with a higher quality than
 * application/json in its Accept header. Clients that list both equally (as the MCP SDK does) get JSON.
 */
export function prefersEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  let json = 0;
  let sse = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const quality = Number.isFinite(q) ? q : 0;
    if (type === 'application/json') json = Math.max(json, quality);
    else if (type === 'text/event-stream') sse = Math.max(sse, quality);
  }
  return sse > json;
}
