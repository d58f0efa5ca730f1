import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiHeader,
  ApiNotAcceptableResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiSecurity,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SECURITY, USAGE_HEADERS, headerRefs } from '../http/openapi/openapi-components.js';
import { JsonRpcErrorDto, JsonRpcMessageDto, JsonRpcResponseDto } from './dto/json-rpc.dto.js';
import { McpService } from './mcp.service.js';
import { JsonOnly } from '../http/json-only.js';

/** The MCP endpoint (Streamable HTTP, stateless): POST carries JSON-RPC; GET and DELETE are 405. */
const DESCRIPTION = `The agent endpoint: the Model Context Protocol over Streamable HTTP (stateless: any node answers any
request; no sessions). The body is a JSON-RPC 2.0 message or a batch: \`initialize\`, \`notifications/initialized\`,
\`ping\`, \`tools/list\` and \`tools/call\` with the tools \`search\` and \`extract\` (and \`crawl\`, \`map\` and
\`research\` when the operator's MCP_TOOLS names them; tavily-mcp's names with MCP_TOOL_NAMES=tavily), whose arguments
are the bodies of the REST routes. Send \`Accept: application/json, text/event-stream\`: the answer is plain JSON, or an
SSE stream when text/event-stream has the higher quality.

Every POST needs the API key (Authorization: Bearer, x-api-key, or the \`tavilyApiKey\` query parameter); without a
valid one the answer is HTTP 401 with WWW-Authenticate. Tool calls go through the same metering as REST (prices,
ledger entries with channel \`mcp\`, idempotency per Idempotency-Key header) and need the key's \`mcp\` scope and the
tool's own scope. Their usage headers are on the HTTP response (a batch: the last call's) and in the result's
\`_meta["searchledger/usage"]\`. Everything that goes wrong with one call is a tool result with \`isError: true\` whose
text says why and whether to retry: invalid arguments and refused URLs (not charged), refusals (scope and depth 403,
quota 402, rate limit 429, 409, 422, 502, 503). Protocol errors are JSON-RPC errors: -32700 parse error, -32600
invalid request, -32601 unknown method, -32602 unknown tool, -32603 internal error.`;

@Controller('mcp')
@ApiTags('Agent (MCP)')
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  @JsonOnly({ documented: false })
  @ApiOperation({ summary: 'MCP: JSON-RPC 2.0 over Streamable HTTP', description: DESCRIPTION })
  @ApiSecurity(SECURITY.apiKeyBearer)
  @ApiSecurity(SECURITY.apiKeyHeader)
  @ApiSecurity(SECURITY.apiKeyQuery)
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'Makes a tools/call safe to retry for 24 hours within the organization (billed once).',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  })
  @ApiBody({ type: JsonRpcMessageDto })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    description: 'JSON-RPC response(s), as JSON or as an SSE stream (text/event-stream, `data:` lines).',
    type: JsonRpcResponseDto,
    headers: headerRefs(...USAGE_HEADERS, 'X-Request-Id'),
  })
  @ApiAcceptedResponse({ description: 'Only notifications (or responses) were sent: nothing to answer.' })
  @ApiBadRequestResponse({ description: 'Parse error (-32700) or invalid request (-32600).', type: JsonRpcErrorDto })
  @ApiUnauthorizedResponse({
    description: 'Missing or invalid API key (-32001).',
    type: JsonRpcErrorDto,
    headers: headerRefs('WWW-Authenticate'),
  })
  @ApiNotAcceptableResponse({
    description: 'The Accept header lacks application/json or text/event-stream.',
    type: JsonRpcErrorDto,
  })
  @ApiUnsupportedMediaTypeResponse({
    description:
      'The body is not JSON in UTF-8 (Content-Type application/json, no other charset, no Content-Encoding).',
    type: JsonRpcErrorDto,
  })
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.mcp.handlePost(request, reply);
  }

  /** Not allowed (stateless: no server-initiated stream) */
  @Get()
  @ApiResponse({ status: 405, description: 'Method not allowed (Allow: POST).', type: JsonRpcErrorDto })
  get(@Res() reply: FastifyReply): void {
    this.mcp.methodNotAllowed(reply);
  }

  /** Not allowed (stateless: no session to end) */
  @Delete()
  @ApiResponse({ status: 405, description: 'Method not allowed (Allow: POST).', type: JsonRpcErrorDto })
  delete(@Res() reply: FastifyReply): void {
    this.mcp.methodNotAllowed(reply);
  }
}
