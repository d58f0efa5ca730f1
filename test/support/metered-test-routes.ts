import { BadGatewayException, Body, Controller, Module, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { CRAWL, EXTRACT, MAP, SEARCH, vertical } from '../../src/metering/metered-operation.js';
import { Metered, MeteredCaller } from '../../src/metering/metered.decorator.js';
import type { Caller, WorkOutcome } from '../../src/metering/pipeline/metering-pipeline.js';

/**
 * Routes that exist only in the tests: they prove the metering pipeline before the real data-plane routes do.
 * Each does a little real work from its body (a pause, URLs that "fail", a number of pages) and reports counts.
 */
class TestSearchDto {
  @IsString() @Length(1, 400) query!: string;
  @IsOptional() @IsIn(['basic', 'advanced', 'fast', 'ultra-fast']) search_depth?: string;
  @IsOptional() include_answer?: boolean | string;
  @IsOptional() include_usage?: boolean;
  @IsOptional() @IsInt() @Min(0) @Max(5000) delay_ms?: number;
}

class TestExtractDto {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(20) @IsString({ each: true }) urls!: string[];
  @IsOptional() @IsIn(['basic', 'advanced']) extract_depth?: string;
  @IsOptional() include_usage?: boolean;
  @IsOptional() @IsInt() @Min(0) @Max(5000) delay_ms?: number;
}

class TestPagesDto {
  @IsString() url!: string;
  @IsOptional() @IsString() instructions?: string;
  @IsOptional() @IsInt() @Min(1) limit?: number;
  @IsOptional() @IsIn(['basic', 'advanced']) extract_depth?: string;
  @Type(() => Number) @IsInt() @Min(0) pages!: number;
  @IsOptional() include_usage?: boolean;
}

/** These routes answer bodies of their own; their documentation is not under test. */
const ANY_BODY = { schema: { type: 'object' }, models: [] };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller('test')
class MeteredTestController {
  @Post('search')
  @Metered(SEARCH, ANY_BODY)
  async search(@Body() body: TestSearchDto, @MeteredCaller() caller: Caller): Promise<WorkOutcome> {
    if (body.delay_ms) await pause(body.delay_ms);
    if (body.query === 'upstream-down') throw new BadGatewayException('the upstream search backend failed');
    // An answer when one is asked for, but none for the query 'unanswerable' (as a search whose results hold none).
    const answer = body.include_answer && body.include_answer !== 'false' && body.query !== 'unanswerable';
    return {
      body: {
        query: body.query,
        answer: answer ? `The answer to ${body.query}.` : null,
        images: [],
        results: [],
        received_fields: Object.keys(body).sort(),
        org_id: caller.key.orgId,
      },
      counts: { results: 0, ...(body.include_answer ? { answers: answer ? 1 : 0 } : {}) },
    };
  }

  @Post('search/:vertical')
  @Metered((request) => vertical((request.params as { vertical: string }).vertical), ANY_BODY)
  async vertical(@Body() body: { query?: string }): Promise<WorkOutcome> {
    return { body: { query: body.query ?? null, results: [] }, counts: { results: 0 } };
  }

  @Post('extract')
  @Metered(EXTRACT, ANY_BODY)
  async extract(@Body() body: TestExtractDto): Promise<WorkOutcome> {
    if (body.delay_ms) await pause(body.delay_ms);
    const failed = body.urls.filter((url) => url.includes('fail'));
    const results = body.urls.filter((url) => !url.includes('fail'));
    return {
      body: {
        results: results.map((url) => ({ url, raw_content: `content of ${url}`, images: [] })),
        failed_results: failed.map((url) => ({ url, error: 'Failed to fetch url' })),
      },
      counts: { successful_urls: results.length, failed_urls: failed.length },
    };
  }

  @Post('map')
  @Metered(MAP, ANY_BODY)
  async map(@Body() body: TestPagesDto): Promise<WorkOutcome> {
    const pages = Array.from({ length: Math.min(body.pages, body.limit ?? 50) }, (_, i) => `${body.url}/page-${i}`);
    return { body: { base_url: body.url, results: pages }, counts: { pages: pages.length } };
  }

  @Post('crawl')
  @Metered(CRAWL, ANY_BODY)
  async crawl(@Body() body: TestPagesDto): Promise<WorkOutcome> {
    const pages = Array.from({ length: Math.min(body.pages, body.limit ?? 50) }, (_, i) => `${body.url}/page-${i}`);
    return {
      body: { base_url: body.url, results: pages.map((url) => ({ url, raw_content: 'text', images: [] })) },
      counts: { pages: pages.length },
    };
  }
}

@Module({ controllers: [MeteredTestController] })
export class MeteredTestRoutesModule {}
