import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Controller, Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiNotFoundResponse, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ErrorResponseDto } from '../http/dto/error-response.dto.js';
import { errorBody } from '../http/error-body.js';
import { OpenApiDocumentService } from './openapi-document.service.js';

/** The files of the Swagger UI page, served from the swagger-ui-dist package (no CDN, nothing fetched at run time). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Search Ledger API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** GET /openapi.json (the OpenAPI 3.1 document of every route) and GET /docs (Swagger UI over it). No auth. */
@Controller()
@ApiTags('Documentation')
export class OpenApiController {
  private document: string | null = null;
  private readonly assetDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  private readonly assets = new Map<string, Buffer>();

  constructor(private readonly documents: OpenApiDocumentService) {}

  /** This document (OpenAPI 3.1) */
  @Get('openapi.json')
  @ApiOkResponse({ description: 'OpenAPI 3.1.', schema: { type: 'object' } })
  @Header('content-type', 'application/json; charset=utf-8')
  @Header('cache-control', 'no-cache')
  async openapi(): Promise<string> {
    this.document ??= JSON.stringify(await this.documents.get());
    return this.document;
  }

  /** This document, browsable (Swagger UI) */
  @Get('docs')
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'An HTML page.', schema: { type: 'string' } })
  @Header('content-type', 'text/html; charset=utf-8')
  docs(): string {
    return PAGE;
  }

  /** A static file of the Swagger UI page */
  @Get('docs/:asset')
  @ApiProduces('text/css', 'text/javascript', 'image/png')
  @ApiOkResponse({ description: 'The file.' })
  @ApiNotFoundResponse({ description: 'No such file.', type: ErrorResponseDto })
  async asset(@Param('asset') name: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer | string> {
    if (name === 'init.js') {
      void reply.header('content-type', 'text/javascript; charset=utf-8');
      return INIT;
    }
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!type) throw new NotFoundException(errorBody(`no such file: ${name}`));
    let content = this.assets.get(name);
    if (!content) {
      content = await readFile(path.join(this.assetDir, name));
      this.assets.set(name, content);
    }
    void reply.header('content-type', type).header('cache-control', 'public, max-age=86400');
    return content;
  }
}
