import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ErrorResponseDto } from '../http/dto/error-response.dto.js';
import { type MeteredOperationSpec, vertical } from '../metering/metered-operation.js';
import { Metered } from '../metering/metered.decorator.js';
import type { WorkOutcome } from '../metering/pipeline/metering-pipeline.js';
import { VerticalRequestDto } from './dto/vertical-request.dto.js';
import {
  VERTICAL_RESPONSE_MODELS,
  VERTICAL_RESPONSE_SCHEMA,
  type VerticalResponse,
} from './dto/vertical-response.dto.js';
import { VERTICALS, isVertical } from './verticals.js';
import { VerticalsService } from './verticals.service.js';
import { JsonOnly } from '../http/json-only.js';

/**
 * The metered operation of a vertical: its price from the table (products and images 2 credits, the others 1). An
 * unknown vertical still goes through authentication, scopes and the rate limit (so its 404 carries the usage
 * headers), but reserves nothing: the 404 comes from the work, which bills nothing when it fails.
 */
export function verticalOperation(name: string): MeteredOperationSpec {
  const known = vertical(name);
  return isVertical(name) ? known : { ...known, estimate: () => ({ items: [], units: null }) };
}

/** POST /search/{vertical}, behind the metering pipeline (scope `verticals`). */
@Controller()
@ApiTags('Data plane')
export class VerticalsController {
  constructor(private readonly verticals: VerticalsService) {}

  /** Search one vertical: structured results of one source, normalized to one schema per vertical */
  @Post('search/:vertical')
  @JsonOnly()
  @HttpCode(200)
  @Metered(
    (request: FastifyRequest) => verticalOperation((request.params as { vertical?: string }).vertical ?? ''),
    { schema: VERTICAL_RESPONSE_SCHEMA, models: VERTICAL_RESPONSE_MODELS },
    [
      {
        status: 404,
        description: 'An unknown vertical, or a video that does not exist or has no captions. Not billed.',
        type: ErrorResponseDto,
      },
      {
        status: 501,
        description: 'No upstream is configured that serves this vertical. Not billed.',
        type: ErrorResponseDto,
      },
    ],
  )
  @ApiParam({ name: 'vertical', enum: VERTICALS, description: 'products and images cost 2 credits, the others 1.' })
  @ApiBody({ type: VerticalRequestDto })
  search(@Param('vertical') name: string, @Body() body: unknown): Promise<WorkOutcome<VerticalResponse>> {
    return this.verticals.search(name, body);
  }
}
