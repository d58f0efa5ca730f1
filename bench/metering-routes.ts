import { Body, Controller, HttpCode, Module, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { SEARCH } from '../src/metering/metered-operation.js';
import { Metered } from '../src/metering/metered.decorator.js';
import type { WorkOutcome } from '../src/metering/pipeline/metering-pipeline.js';

/**
 * Routes that exist only in the metering benchmark: two routes with the same body validation and the same trivial
 * handler work, one behind the whole metering pipeline (`@Metered(SEARCH)`: key, scope, rate limit, quota
 * reservation, settlement, a CreditsCharged event durable before the response) and one without it. The difference
 * between the two is what metering costs.
 */
class BenchSearchDto {
  @IsString() @Length(1, 400) query!: string;
  @IsOptional() @IsIn(['basic', 'advanced', 'fast', 'ultra-fast']) search_depth?: string;
  @IsOptional() include_usage?: boolean;
}

/** The shared "work": a search answer with no results, built from the body. */
function work(body: BenchSearchDto): WorkOutcome {
  return {
    body: { query: body.query, follow_up_questions: null, answer: null, images: [], results: [], response_time: 0 },
    counts: { results: 0 },
  };
}

@Controller('bench')
class MeteringBenchController {
  @Post('metered')
  @HttpCode(200)
  @Metered(SEARCH, { schema: { type: 'object' }, models: [] })
  async metered(@Body() body: BenchSearchDto): Promise<WorkOutcome> {
    return work(body);
  }

  @Post('unmetered')
  @HttpCode(200)
  async unmetered(@Body() body: BenchSearchDto, @Req() request: FastifyRequest): Promise<Record<string, unknown>> {
    // The same response body the pipeline would send (it adds the request id); no key, no limit, no charge.
    return { ...work(body).body, request_id: request.id };
  }
}

@Module({ controllers: [MeteringBenchController] })
export class MeteringBenchRoutesModule {}
