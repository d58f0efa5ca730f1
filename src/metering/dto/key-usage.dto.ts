import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

class OperationCredits {
  /** Search (and vertical) credits. */
  search_usage?: number;

  /** Extract credits. */
  extract_usage?: number;

  /** Crawl credits. */
  crawl_usage?: number;

  /** Map credits. */
  map_usage?: number;

  /** Research credits. */
  research_usage?: number;
}

@ApiSchema({ name: 'KeyCredits' })
export class KeyCreditsDto extends OperationCredits {
  /** This key's credits this month. */
  usage!: number;

  /** The key's own monthly credit limit (its monthly_credit_limit); null when it has none. */
  @ApiProperty({ type: 'number', nullable: true })
  limit!: number | null;
}

@ApiSchema({ name: 'AccountCredits' })
export class AccountCreditsDto extends OperationCredits {
  /** Plan. */
  current_plan!: string;

  /** Live credits used this month (of the project with X-Project-ID). */
  plan_usage!: number;

  /** Monthly allowance. */
  plan_limit!: number;

  /** Always 0. */
  paygo_usage?: number;

  /** Always null. */
  @ApiPropertyOptional({ type: 'null' })
  paygo_limit?: null;
}

/** GET /usage, in Tavily's shape: this key's and its organization's credits this month. */
@ApiSchema({ name: 'KeyUsage' })
export class KeyUsageDto {
  key!: KeyCreditsDto;

  account!: AccountCreditsDto;
}
