import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CreditGrantDto } from '../grants/dto/credit-grant.dto.js';

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

  /**
   * Live credits used this month that the allowance and grants paid (with X-Project-ID: the project's live credits,
   * however paid).
   */
  plan_usage!: number;

  /** The monthly allowance and what the credit grants add this month. */
  plan_limit!: number;

  /** Live credits this month past the allowance and grants (pay-as-you-go). */
  paygo_usage!: number;

  /** The most pay-as-you-go credits a month; null when the plan has no overage. */
  @ApiProperty({ type: 'integer', nullable: true })
  paygo_limit!: number | null;

  /** The plan's monthly allowance (ours, beside Tavily's fields). */
  allowance!: number;

  /** The most live credits this month: allowance, grants and overage cap (what a 402 names). */
  credits_limit!: number;

  /** Credit grants that count this month, with what each paid and has left. */
  grants!: CreditGrantDto[];
}

/** GET /usage, in Tavily's shape: this key's and its organization's credits this month. */
@ApiSchema({ name: 'KeyUsage' })
export class KeyUsageDto {
  key!: KeyCreditsDto;

  account!: AccountCreditsDto;
}
