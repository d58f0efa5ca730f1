import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS } from '../../../keys/events/key.events.js';

@ApiSchema({ name: 'UsageMetrics' })
export class UsageMetricsDto {
  /** Credits used, rounded to a whole credit. */
  @ApiProperty({ type: 'integer' })
  usage!: number;

  /** Always 0: this server bills no pay-as-you-go overage. */
  paygo_cost_usd!: number;

  /** Charged calls. */
  @ApiProperty({ type: 'integer' })
  request_count!: number;
}

/** Per endpoint (vertical searches count as search). */
@ApiSchema({ name: 'UsageByType' })
export class UsageByTypeDto {
  search!: UsageMetricsDto;
  extract!: UsageMetricsDto;
  crawl!: UsageMetricsDto;
  map!: UsageMetricsDto;
  research!: UsageMetricsDto;
}

@ApiSchema({ name: 'UsageTotals' })
export class UsageTotalsDto extends UsageMetricsDto {
  by_type!: UsageByTypeDto;
}

@ApiSchema({ name: 'KeyUsageSummary' })
export class KeyUsageSummaryDto extends UsageTotalsDto {
  /** The key's display prefix followed by `...`; never the key. */
  @ApiProperty({ example: 'sk_live_Ab3dE9...' })
  key!: string;

  /** Key name. */
  name!: string;

  /** Not in Tavily's API: the key's id. */
  @ApiProperty({ format: 'uuid' })
  key_id!: string;

  /** Not in Tavily's API: the key's environment. */
  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  environment!: string;
}

/** The filters the figures were read with (the defaults filled in). */
@ApiSchema({ name: 'OrgUsageFilters' })
export class OrgUsageFiltersDto {
  @ApiProperty({ format: 'date' })
  start_date!: string;

  @ApiProperty({ format: 'date' })
  end_date!: string;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  project_id!: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  depth!: string | null;
}

@ApiSchema({ name: 'OrgUsageOrganization' })
export class OrgUsageOrganizationDto {
  name!: string;
  filters!: OrgUsageFiltersDto;
}

@ApiSchema({ name: 'OrgUsageResponse' })
export class OrgUsageResponseDto {
  organization!: OrgUsageOrganizationDto;

  /** Every key listed below together (live and test keys). */
  totals!: UsageTotalsDto;

  /** Every key of the organization (of the project), revoked ones only when they used credits in the window. */
  keys!: KeyUsageSummaryDto[];
}
