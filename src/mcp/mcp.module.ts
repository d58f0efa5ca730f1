import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { ExtractService } from '../extract/extract.service.js';
import { OpenApiModule } from '../openapi/openapi.module.js';
import { SearchModule } from '../search/search.module.js';
import { CrawlModule } from '../crawl/crawl.module.js';
import { ResearchModule } from '../research/research.module.js';
import { ResearchTool } from './research-tool.js';
import { installMcpErrorBodies } from './mcp-error-bodies.js';
import { McpToolCalls } from './mcp-tool-calls.js';
import { McpController } from './mcp.controller.js';
import { McpService } from './mcp.service.js';

/**
 * POST /mcp: the agent endpoint (service-interface.md §4.1), with the tools `search` and `extract` (and `crawl`, `map`
 * and `research` when MCP_TOOLS names them) behind the metering pipeline. ExtractService is provided here from the ExtractModule's global CONTENT_EXTRACTOR (that module
 * exports only the extractor).
 */
@Module({
  imports: [SearchModule, CrawlModule, ResearchModule, OpenApiModule],
  controllers: [McpController],
  providers: [McpService, McpToolCalls, ResearchTool, ExtractService],
})
export class McpModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // The CLI runs the application without an HTTP server.
    const http = this.adapterHost.httpAdapter as HttpAdapterHost['httpAdapter'] | null;
    if (http) installMcpErrorBodies(http.getInstance<FastifyInstance>());
  }
}
