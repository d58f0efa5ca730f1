import { Module } from '@nestjs/common';
import { OpenApiDocumentService } from './openapi-document.service.js';
import { OpenApiController } from './openapi.controller.js';

/** GET /openapi.json (generated from the controllers and DTOs) and the browsable GET /docs. */
@Module({ controllers: [OpenApiController], providers: [OpenApiDocumentService], exports: [OpenApiDocumentService] })
export class OpenApiModule {}
