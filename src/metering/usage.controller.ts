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
import { SECURITY, USAGE_HEADERS, headerRefs } from '../http/openapi/openapi-components.js';
import { ReadYourWrites } from '../event-store/read-your-writes.js';
import { KeyUsageDto } from './dto/key-usage.dto.js';
import type { Reads } from '../database/reads.js';
import { isUuid } from '../organizations/org-access.service.js';
import { billingMonth } from './counter-keys.js';
import { CreditGrantViews } from './grants/credit-grant-views.js';
import { MeteringPipeline } from './pipeline/metering-pipeline.js';
import { usageHeaders } from './pipeline/pipeline-answers.js';
import { takeApiKey } from './take-api-key.js';

const OPERATIONS = ['search', 'extract', 'crawl', 'map', 'research'] as const;

/**
 * How long /usage waits for the read models to include the calls answered before it (they follow the charges by a
 * few milliseconds); past it, it answers with what they hold.
 */
const FRESHNESS_WAIT_MS = 2000;

/**
 * GET /usage with an API key (compat-reference.md section 4): this key's and its organization's credits this month.
 * Free of charge, rate limited like every data-plane call. `X-Project-ID` narrows the account figures to a project.
 */
@Controller('usage')
@ApiTags('Data plane')
export class UsageController {
  constructor(
    private readonly pipeline: MeteringPipeline,
    private readonly readYourWrites: ReadYourWrites,
    private readonly grantViews: CreditGrantViews,
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
    const reads = await this.readYourWrites.readsIncludingEverythingStored(FRESHNESS_WAIT_MS);
    const { keyOps, accountOps } = await this.byOperation(reads, orgId, month, caller.key.keyId, projectId);
    const { plan } = caller;
    const limit = plan.monthlyCreditLimit;
    const spending = await this.grantViews.spending(orgId, month);
    // The allowance and the grants are the plan's credits; past them, pay-as-you-go (Tavily's paygo_*).
    const paygoUsage = Math.round(spending.overageCredits);
    // The headers count the key's environment, as on every metered call; the body's account is the plan's (live).
    const { environment } = caller.key;
    const headerUsage = environment === 'live' ? planUsage : await this.pipeline.creditsUsed(orgId, month, environment);
    void reply.headers({ ...headers, ...usageHeaders(limit, headerUsage) });
    return {
      key: { usage: sum(keyOps), limit: caller.key.budgets.key, ...perOperation(keyOps) },
      account: {
        current_plan: plan.plan,
        plan_usage: projectId ? sum(accountOps) : Math.max(0, planUsage - paygoUsage),
        plan_limit: Math.floor(plan.monthlyCreditAllowance + plan.grantCredits),
        paygo_usage: paygoUsage,
        paygo_limit: plan.overage?.creditCap ?? null,
        allowance: plan.monthlyCreditAllowance,
        credits_limit: limit,
        grants: spending.grants,
        ...perOperation(accountOps),
      },
    };
  }

  /**
   * Credits per operation this month: of this key (any environment), and of the organization's live keys (of one
   * project when given). One statement, so both come from the same snapshot of the read models.
   */
  private async byOperation(
    reads: Reads,
    orgId: string,
    month: string,
    keyId: string,
    projectId: string | null,
  ): Promise<{ keyOps: Map<string, number>; accountOps: Map<string, number> }> {
    const result = await reads.query<{
      operation: string;
      key_credits: string | null;
      account_credits: string | null;
    }>(
      `SELECT operation,
         sum(credits) FILTER (WHERE key_id = $3) AS key_credits,
         sum(credits) FILTER (WHERE environment = 'live' AND ($4::uuid IS NULL OR project_id = $4)) AS account_credits
       FROM usage_daily WHERE org_id = $1 AND month = $2 GROUP BY operation`,
      [orgId, month, keyId, projectId],
    );
    const keyOps = new Map<string, number>();
    const accountOps = new Map<string, number>();
    for (const row of result.rows) {
      if (row.key_credits !== null) keyOps.set(row.operation, Math.round(Number(row.key_credits)));
      if (row.account_credits !== null) accountOps.set(row.operation, Math.round(Number(row.account_credits)));
    }
    return { keyOps, accountOps };
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
