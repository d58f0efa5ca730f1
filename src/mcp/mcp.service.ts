import { Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  isJSONRPCRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { KeyLookupService } from '../keys/key-lookup.service.js';
import { searchClock } from '../search/load/search-admission.js';
import { MESSAGES } from '../metering/metering.errors.js';
import { OPENAPI_VERSION } from '../openapi/openapi-version.js';
import {
  ErrorCode,
  type JsonRpcErrorBody,
  invalidRequestReason,
  jsonRpcError,
  mcpApiKey,
  prefersEventStream,
  requestIdOf,
} from './json-rpc.js';
import { type McpCallContext, McpToolCalls } from './mcp-tool-calls.js';
import { OpenApiDocumentService } from '../openapi/openapi-document.service.js';
import type { McpOperation } from '../config/mcp-tools.setting.js';
import { type McpToolSettings, mcpTools, toolName } from './mcp-tools.js';

/** Told to the agent at initialize: the tools offered, by their names. */
function instructions(settings: McpToolSettings): string {
  const name = (operation: McpOperation) => `\`${toolName(operation, settings.naming)}\``;
  const more: Record<Exclude<McpOperation, 'search' | 'extract'>, string> = {
    crawl: `${name('crawl')} to read a whole site from a start URL`,
    map: `${name('map')} to list the URLs of a site`,
    research: `${name('research')} for a cited report on a question (it waits until the report is done)`,
  };
  const extra = settings.operations.flatMap((operation) =>
    operation === 'search' || operation === 'extract' ? [] : [more[operation]],
  );
  return (
    `Web search and page extraction. Use ${name('search')} to find pages (and, with include_answer, a short ` +
    `answer) and ${name('extract')} to read the pages that matter in full` +
    (extra.length > 0 ? `; ${extra.join('; ')}. ` : '. ') +
    'Every call is billed in credits to the API key of this connection; a refused call (quota, rate limit, scope) ' +
    'or invalid arguments come back as a tool error that says why and whether to retry.'
  );
}

/** JSON-RPC error code of an HTTP-level refusal of the request (401), in the implementation-defined range. */
const UNAUTHORIZED_CODE = -32001;

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (any node answers any request). Every POST
 * needs a valid API key (401 with WWW-Authenticate before anything else, even for initialize); then a new MCP
 * server and transport of the official SDK handle the message or batch, answering with plain JSON (or an SSE stream
 * when the client prefers it). The usage headers of the request's tool call (of the last one, in batch order) go on
 * the HTTP response.
 */
@Injectable()
export class McpService {
  private readonly logger = new Logger('Mcp');

  private tools: Promise<Tool[]> | null = null;

  constructor(
    private readonly keys: KeyLookupService,
    private readonly toolCalls: McpToolCalls,
    private readonly documents: OpenApiDocumentService,
  ) {}

  async handlePost(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const body = request.body;
    const apiKey = mcpApiKey(request);
    const key = apiKey ? await this.keys.lookup(apiKey) : null;
    if (!apiKey || !key || key.status !== 'active') {
      const message = key?.status === 'revoked' ? MESSAGES.revokedKey : MESSAGES.invalidKey;
      const description = apiKey ? message : 'An API key is required (Authorization: Bearer <key>).';
      const challenge = `Bearer realm="mcp", error="invalid_token", error_description="${description.replaceAll('"', "'")}"`;
      return this.send(reply, 401, jsonRpcError(UNAUTHORIZED_CODE, message, requestIdOf(body)), {
        'WWW-Authenticate': challenge,
      });
    }
    if (request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
      const message = 'Unsupported Media Type: Content-Type must be application/json';
      return this.send(reply, 415, jsonRpcError(-32000, message));
    }
    const invalid = invalidRequestReason(body);
    if (invalid) return this.send(reply, 400, jsonRpcError(ErrorCode.InvalidRequest, invalid, requestIdOf(body)));

    const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
    const callPositions = new Map<string | number, number>();
    for (const message of messages) {
      if (isJSONRPCRequest(message) && message.method === 'tools/call')
        callPositions.set(message.id, callPositions.size);
    }
    const idempotencyKey = request.headers['idempotency-key'];
    const raw = reply.raw;
    let shownPosition = -1;
    const context: McpCallContext = {
      apiKey,
      key,
      requestId: request.id,
      arrivedAt: searchClock(request).arrivedAt,
      idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
      callPositions,
      usageHeaders: (position, headers) => {
        // Calls of a batch may finish in any order: the last call's headers win, whenever it finishes.
        if (position < shownPosition || raw.headersSent) return;
        shownPosition = position;
        for (const [name, value] of Object.entries(headers)) raw.setHeader(name, value);
      },
    };

    const server = this.createServer(context);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !prefersEventStream(request.headers.accept),
    });
    // From here on the SDK writes the response; Fastify must not answer too. Headers set so far (x-request-id) are
    // carried over to the raw response.
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
    reply.hijack();
    raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, raw, body);
    } catch (error) {
      this.logger.error({ err: error }, 'MCP request failed');
      if (!raw.headersSent) {
        raw.writeHead(500, { 'content-type': 'application/json' });
        raw.end(JSON.stringify(jsonRpcError(ErrorCode.InternalError, 'Internal server error')));
      } else {
        raw.end();
      }
    }
  }

  /** GET and DELETE /mcp: no sessions and no server-initiated stream in stateless mode. */
  methodNotAllowed(reply: FastifyReply): void {
    this.send(reply, 405, jsonRpcError(-32000, 'Method not allowed.'), { Allow: 'POST' });
  }

  private send(
    reply: FastifyReply,
    status: number,
    body: JsonRpcErrorBody,
    headers: Record<string, string> = {},
  ): void {
    void reply.status(status).headers(headers).type('application/json').send(body);
  }

  /** A new MCP server for one HTTP request: tools/list and tools/call (initialize and ping are the SDK's). */
  private createServer(context: McpCallContext): Server {
    const server = new Server(
      { name: 'search-ledger-api', title: 'Search Ledger API', version: OPENAPI_VERSION },
      { capabilities: { tools: {} }, instructions: instructions(this.toolCalls.settings) },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      this.tools ??= this.documents.get().then((document) => mcpTools(document, this.toolCalls.settings));
      return { tools: await this.tools };
    });
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.toolCalls.call(request.params.name, request.params.arguments, context, extra.requestId, extra.signal),
    );
    server.onerror = (error) => this.logger.debug(`MCP transport: ${error.message}`);
    return server;
  }
}
