import type { FastifyInstance } from 'fastify';
import { ErrorCode, jsonRpcError } from './json-rpc.js';

/**
 * Errors Fastify answers for POST /mcp before the route's handler runs — a body that is not JSON (400), a
 * Content-Type that is not JSON (415), a body over the limit (413) — and errors of the handler that reach the
 * global exception filter (a 503 when the key lookup's database is down), rewritten from the REST error body into a
 * JSON-RPC error response: a body that does not parse is -32700 (Parse error), a server failure -32603, anything else
 * -32000 with the same message. The HTTP status stays.
 */
export function installMcpErrorBodies(fastify: FastifyInstance, path = '/mcp'): void {
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (request.routeOptions.url !== path || reply.statusCode < 400 || typeof payload !== 'string') return payload;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return payload;
    }
    if (!parsed || typeof parsed !== 'object' || (parsed as { jsonrpc?: unknown }).jsonrpc === '2.0') return payload;
    const error = (parsed as { error?: unknown }).error;
    const message = typeof error === 'string' ? error : 'The request failed.';
    const status = reply.statusCode;
    const body =
      status === 400
        ? jsonRpcError(ErrorCode.ParseError, `Parse error: ${message}`)
        : jsonRpcError(status >= 500 ? ErrorCode.InternalError : -32000, message);
    void reply.header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(body);
  });
}
