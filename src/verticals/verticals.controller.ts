import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type MeteredOperationSpec, vertical } from '../metering/metered-operation.js';
import { Metered } from '../metering/metered.decorator.js';
import type { WorkOutcome } from '../metering/metering-pipeline.js';
import { isVertical } from './verticals.js';
import { VerticalsService } from './verticals.service.js';
import { ApiTags } from '@nestjs/swagger';

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
  @HttpCode(200)
  @Metered((request: FastifyRequest) => verticalOperation((request.params as { vertical?: string }).vertical ?? ''), {
    schema: { type: 'object' },
    models: [],
  })
  search(@Param('vertical') name: string, @Body() body: unknown): Promise<WorkOutcome> {
    return this.verticals.search(name, body);
  }
}
