import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
export class UsageController {
  constructor(
    private readonly pipeline: MeteringPipeline,
    private readonly db: Database,
  ) {}

  @Get()
  async usage(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
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
