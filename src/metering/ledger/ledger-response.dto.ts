import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS } from '../../keys/events/key.events.js';
import { CreditGrantDto, OverageDto } from '../grants/dto/credit-grant.dto.js';
import { METERED_OPERATIONS } from './ledger.dto.js';

class Figures {
  /** live or test: whose credits these are (only live credits count against the allowance). */
  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  environment!: string;

  /** Credits. */
  credits!: number;

  /** Requests. */
  @ApiProperty({ type: 'integer' })
  requests!: number;
}

@ApiSchema({ name: 'ProjectUsage' })
export class ProjectUsageDto extends Figures {
  /** Project. */
  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  /** Name. */
  name!: string | null;
}

@ApiSchema({ name: 'KeyUsageFigures' })
export class KeyUsageFiguresDto extends Figures {
  /** Key. */
  @ApiProperty({ format: 'uuid' })
  key_id!: string;

  /** Name. */
  name!: string | null;

  /** Prefix. */
  prefix!: string | null;
}

@ApiSchema({ name: 'OperationUsage' })
export class OperationUsageDto extends Figures {
  /** Operation. */
  @ApiProperty({ enum: METERED_OPERATIONS })
  operation!: string;
}

@ApiSchema({ name: 'DayUsage' })
export class DayUsageDto extends OperationUsageDto {
  /** YYYY-MM-DD. */
  @ApiProperty({ format: 'date' })
  day!: string;
}

/** A plan as it held at some time: its name and limits, and when it took effect. */
@ApiSchema({ name: 'PlanThen' })
export class PlanThenDto {
  /** The plan's name. */
  plan!: string;

  /** Its monthly credit allowance (live credits). */
  monthly_credit_allowance!: number;

  /** Requests a minute, live and test keys. */
  @ApiProperty({ type: 'object', properties: { live: { type: 'integer' }, test: { type: 'integer' } } })
  rate_limit_per_minute!: { live: number; test: number };

  /** When it took effect (the organization's creation, or the plan change). */
  @ApiProperty({ format: 'date-time' })
  since!: string;
}

/** What credits_limit counts: the allowance, and for the current month what grants add and the overage cap. */
@ApiSchema({ name: 'CreditsLimitParts' })
export class CreditsLimitPartsDto {
  /** The plan's monthly allowance (of the plan that held at the end of the month; today's for the current month). */
  allowance!: number;

  /**
   * What credit grants add this month: what they paid in it and what they can still pay. Null for a past month,
   * whose credits_limit is the allowance only.
   */
  @ApiProperty({ type: 'number', nullable: true })
  grants!: number | null;

  /** The plan's overage cap (0 without overage). Null for a past month. */
  @ApiProperty({ type: 'number', nullable: true })
  overage_cap!: number | null;
}

/** An organization's usage of a month, by project, key, operation and day. */
@ApiSchema({ name: 'OrgUsage' })
export class UsageReportDto {
  /** YYYY-MM. */
  month!: string;

  /**
   * The plan that held at the end of the month (today's, for the current month), from the plan's events; null for a
   * month that ended before the organization existed.
   */
  @ApiProperty({ type: PlanThenDto, nullable: true })
  plan!: PlanThenDto | null;

  /**
   * The current month: the organization's limit, what the quota enforces (the allowance, what grants add this month
   * and the overage cap; see credits_limit_parts). A past month: the monthly credit allowance of the plan that held
   * at its end (0 before the organization existed).
   */
  credits_limit!: number;

  /** What credits_limit counts. */
  credits_limit_parts!: CreditsLimitPartsDto;

  /** Live credits of the month (what the limit counts). */
  credits_used!: number;

  /** Live credits left under credits_limit (0 once it is reached). */
  credits_remaining!: number;

  /** Credits of test keys (not counted against the allowance). */
  test_credits_used!: number;

  /** Requests of the month, live and test (live_requests + test_requests). */
  @ApiProperty({ type: 'integer' })
  requests!: number;

  /** Requests of live keys. */
  @ApiProperty({ type: 'integer' })
  live_requests!: number;

  /** Requests of test keys. */
  @ApiProperty({ type: 'integer' })
  test_requests!: number;

  /**
   * Per project and environment. Every breakdown's rows of one environment add up to that environment's totals
   * (credits_used and live_requests, or test_credits_used and test_requests).
   */
  by_project!: ProjectUsageDto[];

  /** Per key (a key has one environment). */
  by_key!: KeyUsageFiguresDto[];

  /** Per operation and environment. */
  by_operation!: OperationUsageDto[];

  /** Per day, operation and environment. */
  by_day!: DayUsageDto[];

  /** Credit grants that count in the month, with what each paid and has left (now, for the current month). */
  grants!: CreditGrantDto[];

  /** Pay-as-you-go past the allowance and grants, and what it came to in the month; null when the plan has none. */
  @ApiProperty({ type: OverageDto, nullable: true })
  overage!: OverageDto | null;
}

@ApiSchema({ name: 'GrantPayment' })
export class GrantPaymentDto {
  /** Credit grant id. */
  @ApiProperty({ format: 'uuid' })
  grant_id!: string;

  /** Credits it paid. */
  credits!: number;
}

@ApiSchema({ name: 'ChargePayment' })
export class ChargePaymentDto {
  /** Credits the plan's allowance paid. */
  allowance!: number;

  /** Credits grants paid, soonest to expire first. */
  grants!: GrantPaymentDto[];

  /** Overage credits (past the allowance and grants, billed at the plan's price per credit). */
  overage!: number;
}

/** One charge as finance reads it; positions are strings (bigints). */
@ApiSchema({ name: 'LedgerEntry' })
export class LedgerEntryDto {
  /** Position of the charge in the event store (with prepare_position: the order). */
  commit_position!: string;

  /** Position of the charge in the event store. */
  prepare_position!: string;

  /** When it was charged. */
  @ApiProperty({ format: 'date-time' })
  occurred_at!: string;

  /** Charge id. */
  @ApiProperty({ format: 'uuid' })
  charge_id!: string;

  /** YYYY-MM. */
  billing_month!: string;

  /**
   * A late charge (appended after its own month closed): that closed month, YYYY-MM; the charge is booked in
   * billing_month, the month open then, as an adjustment. Null for every other charge.
   */
  corrects_month!: string | null;

  /** Organization. */
  @ApiProperty({ format: 'uuid' })
  org_id!: string;

  /** Project. */
  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  /** The project's name when it was charged (a later rename leaves it as it was). */
  project_name!: string | null;

  /** The project's name today, when it was renamed since the charge; null when it is still project_name. */
  project_name_now!: string | null;

  /** Key. */
  @ApiProperty({ format: 'uuid' })
  key_id!: string;

  /** The key's name when it was charged (a later rename leaves it as it was). */
  key_name!: string | null;

  /** The key's name today, when it was renamed since the charge; null when it is still key_name. */
  key_name_now!: string | null;

  /** Key prefix. */
  key_prefix!: string | null;

  /** Key environment. */
  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  key_environment!: string;

  /** Operation. */
  @ApiProperty({ enum: METERED_OPERATIONS })
  operation!: string;

  /** How it was called: REST or an MCP tool call. */
  @ApiProperty({ enum: ['rest', 'mcp'], nullable: true })
  channel!: string | null;

  /** basic, advanced or the vertical. */
  depth!: string | null;

  /** Credits. */
  credits!: number;

  /** Request id. */
  request_id!: string;

  /** The Idempotency-Key of the call. */
  idempotency_key!: string | null;

  /** What priced it (results, successful_urls, failed_urls, pages). */
  @ApiProperty({ type: 'object', additionalProperties: true })
  counts!: Record<string, unknown>;

  /** Price items and units. */
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  pricing!: Record<string, unknown> | null;

  /** The price in words, from `pricing` and `counts` (e.g. why 2 URLs cost 0 credits or 1). */
  price_explanation!: string;

  /**
   * What paid a live charge's credits: the allowance, credit grants (in spending order), and overage credits
   * (pay-as-you-go); null for test keys and charges of 0 credits.
   */
  @ApiProperty({ type: ChargePaymentDto, nullable: true })
  paid_by!: ChargePaymentDto | null;
}

@ApiSchema({ name: 'LedgerFigures' })
export class LedgerFiguresDto {
  /** Entries. */
  @ApiProperty({ type: 'integer' })
  entries!: number;

  /** Their credits. */
  credits!: number;
}

/** What the filter matches, in every page, per environment. */
@ApiSchema({ name: 'LedgerTotals' })
export class LedgerTotalsDto {
  /** Charges of live keys (counted against the allowance). */
  live!: LedgerFiguresDto;

  /** Charges of test keys. */
  test!: LedgerFiguresDto;
}

@ApiSchema({ name: 'LedgerPage' })
export class LedgerPageDto {
  /** Charges, newest first (order=desc, the default) or in store order (order=asc). */
  entries!: LedgerEntryDto[];

  /** Every entry the filter matches, not only this page's. */
  totals!: LedgerTotalsDto;

  /** Pass as cursor for the next page; null on the last page. */
  next_cursor!: string | null;
}
