import {
  type ArgumentMetadata,
  BadRequestException,
  ForbiddenException,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { ReadYourWrites } from '../../event-store/read-your-writes.js';
import { dateWindow, utcDay } from '../../common/date-window.js';
import { Database } from '../../database/database.js';
import { errorBody } from '../../http/error-body.js';
import { createValidationPipe } from '../../http/validation.pipe.js';
import { maskedKey } from '../../keys/masked-key.js';
import { billingMonth } from '../counter-keys.js';
import { type KeyUsageRow, LedgerQueries } from '../ledger/ledger.queries.js';
import { MeteringPipeline } from '../pipeline/metering-pipeline.js';
import { MeteringException } from '../metering.errors.js';
import { OrgUsageRequestDto } from './dto/org-usage-request.dto.js';
import type {
  KeyUsageSummaryDto,
  OrgUsageResponseDto,
  UsageByTypeDto,
  UsageMetricsDto,
  UsageTotalsDto,
} from './dto/org-usage-response.dto.js';

const BODY: ArgumentMetadata = { type: 'body', metatype: OrgUsageRequestDto };
/** How long POST /org-usage waits for the read models to include the calls answered before it (as GET /usage). */
const FRESHNESS_WAIT_MS = 2000;
const TYPES = ['search', 'extract', 'crawl', 'map', 'research'] as const;
/** The ledger's operations per type of Tavily's breakdown: a vertical search is a search. */
const TYPE_OF: Readonly<Record<string, (typeof TYPES)[number]>> = {
  search: 'search',
  vertical: 'search',
  extract: 'extract',
  crawl: 'crawl',
  map: 'map',
  research: 'research',
};

export const NOT_OWNER_KEY =
  "Please authenticate with the organization owner's personal API key, not an organization API key.";
export const ORGANIZATION_NOT_FOUND = 'Organization not found or access denied.';

export interface OrgUsageAnswer {
  readonly body: OrgUsageResponseDto;
  readonly headers: Record<string, string>;
}

/** Exact sums of one key or of the organization, rounded only when answered. */
class Tally {
  private readonly byType = new Map<string, { credits: number; requests: number }>();

  add(operation: string, credits: number, requests: number): void {
    const type = TYPE_OF[operation] ?? operation;
    const sum = this.byType.get(type) ?? { credits: 0, requests: 0 };
    this.byType.set(type, { credits: sum.credits + credits, requests: sum.requests + requests });
  }

  totals(): UsageTotalsDto {
    const all = [...this.byType.values()];
    const by_type = Object.fromEntries(
      TYPES.map((type) => [type, metrics(this.byType.get(type) ?? { credits: 0, requests: 0 })]),
    ) as unknown as UsageByTypeDto;
    return {
      ...metrics({
        credits: all.reduce((sum, t) => sum + t.credits, 0),
        requests: all.reduce((sum, t) => sum + t.requests, 0),
      }),
      by_type,
    };
  }
}

function metrics(sum: { credits: number; requests: number }): UsageMetricsDto {
  return { usage: Math.round(sum.credits), paygo_cost_usd: 0, request_count: sum.requests };
}

/**
 * POST /org-usage: the key (401) and the rate limit (429) as every data-plane call, then the body (400), then the
 * owner's key (403): a live key created by a user who is an owner of the key's organization. The organization named
 * must be that key's own, by its exact name (404 otherwise: no key ever reads another organization's usage). The
 * figures come from the read models (usage_daily; the ledger's entries for one depth).
 */
@Injectable()
export class OrgUsageService {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly pipeline: MeteringPipeline,
    private readonly db: Database,
    private readonly ledger: LedgerQueries,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** `body`: null when the request's body is not a JSON object. */
  async usage(apiKey: string | null, body: Record<string, unknown> | null): Promise<OrgUsageAnswer> {
    const { caller, headers } = await this.pipeline.authenticateAndLimit(apiKey);
    try {
      if (!body) throw new BadRequestException(errorBody('The body must be a JSON object.'));
      const given = (await this.validation.transform(body, BODY)) as OrgUsageRequestDto;
      const today = new Date();
      const startDate = given.start_date ?? `${billingMonth(today)}-01`;
      const endDate = given.end_date ?? utcDay(today);
      const window = dateWindow(startDate, endDate);
      if (!window) throw new BadRequestException(errorBody('end_date must not be before start_date'));
      const organization = await this.ownerKeyOrganization(caller.key.keyId);
      if (!organization) throw new ForbiddenException(errorBody(NOT_OWNER_KEY));
      if (organization.name !== given.organization_name) throw new NotFoundException(errorBody(ORGANIZATION_NOT_FOUND));
      const reads = await this.readYourWrites.readsIncludingEverythingStored(FRESHNESS_WAIT_MS);
      const rows = await this.ledger.keyUsage(
        caller.key.orgId,
        { since: window.since!, until: window.until!, projectId: given.project_id, depth: given.depth },
        reads,
      );
      return {
        headers,
        body: {
          organization: {
            name: organization.name,
            filters: {
              start_date: startDate,
              end_date: endDate,
              project_id: given.project_id ?? null,
              depth: given.depth ?? null,
            },
          },
          ...summaries(rows),
        },
      };
    } catch (error) {
      throw MeteringException.withHeaders(error, headers);
    }
  }

  /**
   * The name of the key's organization when the key is an owner's: live, and created (through the API or the
   * dashboard) by a user who is an owner of that organization now; null for any other key.
   */
  private async ownerKeyOrganization(keyId: string): Promise<{ name: string } | null> {
    const result = await this.db.query<{ name: string }>(
      `SELECT o.name FROM api_keys k JOIN organizations o ON o.org_id = k.org_id
       WHERE k.key_id = $1 AND k.environment = 'live' AND EXISTS (
         SELECT 1 FROM org_members m
         WHERE m.org_id = k.org_id AND m.role = 'owner' AND k.created_by = 'user:' || m.user_id::text)`,
      [keyId],
    );
    return result.rows[0] ?? null;
  }
}

function summaries(rows: readonly KeyUsageRow[]): Pick<OrgUsageResponseDto, 'totals' | 'keys'> {
  const organization = new Tally();
  const keys = new Map<string, { row: KeyUsageRow; tally: Tally }>();
  for (const row of rows) {
    const key = keys.get(row.key_id) ?? { row, tally: new Tally() };
    keys.set(row.key_id, key);
    if (row.operation === null) continue;
    key.tally.add(row.operation, row.credits ?? 0, row.requests ?? 0);
    organization.add(row.operation, row.credits ?? 0, row.requests ?? 0);
  }
  return {
    totals: organization.totals(),
    keys: [...keys.values()].map(({ row, tally }): KeyUsageSummaryDto => ({
      key: maskedKey(row.prefix)!,
      name: row.name,
      ...tally.totals(),
      key_id: row.key_id,
      environment: row.environment,
    })),
  };
}
