import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpService } from './mcp.service.js';

/** The MCP endpoint (Streamable HTTP, stateless): POST carries JSON-RPC; GET and DELETE are 405. */
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.mcp.handlePost(request, reply);
  }

  @Get()
  get(@Res() reply: FastifyReply): void {
    this.mcp.methodNotAllowed(reply);
  }

  @Delete()
  delete(@Res() reply: FastifyReply): void {
    this.mcp.methodNotAllowed(reply);
  }
}
