import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller.js';

/** GET /openapi.json and the browsable GET /docs. */
@Module({ controllers: [OpenApiController] })
export class OpenApiModule {}
