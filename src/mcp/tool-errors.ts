import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The key of a tool result's `_meta` that carries the usage headers of the call (also for SSE responses). */
export const USAGE_META = 'searchledger/usage';
/** The key of a refused call's `_meta` that carries the HTTP status and error body REST would have answered. */
export const ERROR_META = 'searchledger/error';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/**
 * A protocol error (unknown tool, internal error) for the SDK to answer as a JSON-RPC error. The SDK sends an
 * error's `code` and `message` as they are; its own McpError would prefix the message with "MCP error <code>: ",
 * which the client then prefixes again.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/**
 * Arguments the tool refuses (its DTO's rules, a refused URL): a tool result with `isError: true`, not a JSON-RPC
 * error, so that the model reads the reason and corrects the call (MCP 2025-11-25, SEP-1303). Nothing is charged.
 */
export function invalidArguments(tool: string, message: string, headers: Record<string, string> = {}): CallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: `Invalid arguments for tool ${tool}: ${message}\nFix the arguments and call again; nothing was charged.`,
      },
    ],
    isError: true,
    _meta: errorMeta(400, { error: message }, headers),
  };
}

/** A refused or failed call as a tool result an agent can act on: the reason, the figures, whether to retry. */
export function refusal(
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): CallToolResult {
  const message = String(body.error ?? 'The request failed.');
  const lines = [`Refused: HTTP ${status} ${STATUS_TEXT[status] ?? 'Error'}. ${message}`];
  switch (status) {
    case 402: {
      const used = body.credits_used ?? headers['X-Credits-Used'];
      const limit = body.credits_limit ?? headers['X-Credits-Limit'];
      const budget = body.limit === 'key' ? "this API key's" : body.limit === 'project' ? "the project's" : null;
      lines.push(
        `Credits used this month: ${String(used)} of ${String(limit)}.`,
        budget
          ? `Do not retry: ${budget} monthly credit limit renews on the 1st of next month (UTC), or an owner or admin must raise it.`
          : 'Do not retry: the monthly allowance renews on the 1st of next month (UTC), or the plan must be raised.',
      );
      break;
    }
    case 429: {
      const wait = body.retry_after ?? headers['Retry-After'];
      lines.push(`Retry after ${String(wait)} seconds.`);
      break;
    }
    case 403:
      lines.push(
        /depth|model 'pro'/.test(message)
          ? "Do not retry as is: ask for depth 'basic', or use a key that is not limited to basic depth."
          : 'Do not retry with this key: use a key that has the scope.',
      );
      break;
    case 401:
      lines.push('Do not retry: check the API key.');
      break;
    case 409:
      lines.push('A call with the same Idempotency-Key is still running: retry after it completes.');
      break;
    case 422:
      lines.push('Use a new Idempotency-Key for a different request.');
      break;
    case 502:
    case 503:
      lines.push(
        /^The start URL /.test(message)
          ? 'Check the URL; retry with backoff only if the site may have been down.'
          : `Retry with backoff${headers['Retry-After'] ? `, after ${headers['Retry-After']} seconds` : ''}.`,
      );
      break;
  }
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    isError: true,
    _meta: errorMeta(status, body, headers),
  };
}

function errorMeta(status: number, body: Record<string, unknown>, headers: Record<string, string>) {
  return { [ERROR_META]: { status, ...body }, ...(Object.keys(headers).length > 0 ? { [USAGE_META]: headers } : {}) };
}
