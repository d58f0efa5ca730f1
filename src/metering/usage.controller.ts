import { Controller, Get, Req, Res } from '@nestjs/common';
import {
  ApiHeader,
  ApiOkResponse,
  ApiSecurity,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorResponseDto, RateLimitErrorResponseDto } from '../http/dto/error-response.dto.js';
import { SECURITY, USAGE_HEADERS, headerRefs } from '../openapi/openapi-components.js';
import { KeyUsageDto } from './dto/key-usage.dto.js';
import { Database } from '../database/database.js';
import { isUuid } from '../organizations/org-access.service.js';
import { billingMonth } from './counter-keys.js';
import { MeteringPipeline } from './metering-pipeline.js';
import { takeApiKey } from './take-api-key.js';

const OPERATIONS = ['search', 'extract', 'crawl', 'map', 'research'] as const;

/**
 * GET /usage with an API key (compat-reference.md section 4): this key's and its organization's credits this month.
 * Free of charge, rate limited like every data-plane call. `X-Project-ID` narrows the account figures to a project.
 */
@Controller('usage')
@ApiTags('Data plane')
export class UsageController {
  constructor(
    private readonly pipeline: MeteringPipeline,
    private readonly db: Database,
  ) {}

  /** This key's and its organization's credits this month (free, rate limited) */
  @Get()
  @ApiSecurity(SECURITY.apiKeyBearer)
  @ApiSecurity(SECURITY.apiKeyHeader)
  @ApiHeader({
    name: 'X-Project-ID',
    required: false,
    description: 'Narrows the account figures to a project.',
    schema: { type: 'string', format: 'uuid' },
  })
  @ApiOkResponse({ type: KeyUsageDto, headers: headerRefs(...USAGE_HEADERS) })
  @ApiUnauthorizedResponse({ description: 'Missing, malformed, unknown or revoked API key.', type: ErrorResponseDto })
  @ApiTooManyRequestsResponse({
    description: 'Over the per-minute rate limit of the key.',
    type: RateLimitErrorResponseDto,
    headers: headerRefs(...USAGE_HEADERS, 'Retry-After'),
  })
  async usage(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<KeyUsageDto> {
    const { caller, headers } = await this.pipeline.authenticateAndLimit(takeApiKey(request).apiKey);
    const month = billingMonth(new Date());
    const orgId = caller.key.orgId;
    const planUsage = await this.pipeline.creditsUsed(orgId, month);
    const projectHeader = request.headers['x-project-id'];
    const projectId = typeof projectHeader === 'string' && isUuid(projectHeader) ? projectHeader : null;
    const keyOps = await this.byOperation(orgId, month, { keyId: caller.key.keyId });
    const accountOps = await this.byOperation(orgId, month, { projectId, environment: 'live' });
    const limit = caller.plan.monthlyCreditAllowance;
    void reply.headers({
      ...headers,
      'X-Credits-Limit': String(limit),
      'X-Credits-Used': String(planUsage),
      'X-Credits-Remaining': String(Math.max(0, limit - planUsage)),
    });
    return {
      key: { usage: sum(keyOps), limit: null, ...perOperation(keyOps) },
      account: {
        current_plan: caller.plan.plan,
        plan_usage: projectId ? sum(accountOps) : planUsage,
        plan_limit: limit,
        paygo_usage: 0,
        paygo_limit: null,
        ...perOperation(accountOps),
      },
    };
  }

  private async byOperation(
    orgId: string,
    month: string,
    filter: { keyId?: string; projectId?: string | null; environment?: string },
  ): Promise<Map<string, number>> {
    const conditions = ['org_id = $1', 'month = $2'];
    const values: unknown[] = [orgId, month];
    if (filter.keyId) conditions.push(`key_id = $${values.push(filter.keyId)}`);
    if (filter.projectId) conditions.push(`project_id = $${values.push(filter.projectId)}`);
    if (filter.environment) conditions.push(`environment = $${values.push(filter.environment)}`);
    const result = await this.db.query<{ operation: string; credits: string }>(
      `SELECT operation, sum(credits) AS credits FROM usage_daily WHERE ${conditions.join(' AND ')} GROUP BY operation`,
      values,
    );
    return new Map(result.rows.map((r) => [r.operation, Math.round(Number(r.credits))]));
  }
}

function sum(byOperation: Map<string, number>): number {
  return [...byOperation.values()].reduce((a, b) => a + b, 0);
}

function perOperation(byOperation: Map<string, number>): Record<string, number> {
  const figures: Record<string, number> = {};
  for (const operation of OPERATIONS) figures[`${operation}_usage`] = byOperation.get(operation) ?? 0;
  figures.search_usage = (figures.search_usage ?? 0) + (byOperation.get('vertical') ?? 0);
  return figures;
}
