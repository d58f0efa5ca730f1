import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, Matches, Max, Min, ValidateNested } from 'class-validator';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { PLAN_NAMES, type PlanName } from '../plans.js';

/** The most a PostgreSQL integer column (the rate limits) holds. */
const MAX_RATE = 2_147_483_647;
/** Allowances are whole credits; past this a JavaScript number stops counting them exactly. */
const MAX_ALLOWANCE = Number.MAX_SAFE_INTEGER;
/** A price: digits, and up to 8 decimal places. */
export const PRICE = /^\d{1,12}(\.\d{1,8})?$/;

@ApiSchema({ name: 'RateLimitsChange' })
export class RateLimitsChangeDto {
  /** Requests per minute of a live key. Default: the plan's. */
  @IsOptional()
  @IsInt({ message: 'live must be a whole number of requests per minute' })
  @Min(1)
  @Max(MAX_RATE)
  live?: number;

  /** Requests per minute of a test key. Default: the plan's. */
  @IsOptional()
  @IsInt({ message: 'test must be a whole number of requests per minute' })
  @Min(1)
  @Max(MAX_RATE)
  test?: number;
}

@ApiSchema({ name: 'OverageChange' })
export class OverageChangeDto {
  /** The most pay-as-you-go credits a month, past the allowance and the grants. */
  @IsInt({ message: 'credit_cap must be a whole number of credits' })
  @Min(0)
  @Max(MAX_ALLOWANCE)
  credit_cap!: number;

  /** Price of one overage credit: a decimal string with up to 8 places, e.g. "0.008". */
  @ApiProperty({ example: '0.008' })
  @Matches(PRICE, { message: 'price_per_credit must be a decimal string such as "0.008" (up to 8 places)' })
  price_per_credit!: string;
}

@ApiSchema({ name: 'ChangePlan' })
export class ChangePlanDto {
  /** The plan: its allowance and rate limits unless given below. */
  @ApiProperty({ enum: PLAN_NAMES })
  @IsIn(PLAN_NAMES, { message: `plan must be one of: ${PLAN_NAMES.join(', ')}` })
  plan!: PlanName;

  /** Live credits a month. Default: the plan's. */
  @IsOptional()
  @IsInt({ message: 'monthly_credit_allowance must be a whole number of credits' })
  @Min(0)
  @Max(MAX_ALLOWANCE)
  monthly_credit_allowance?: number;

  @ApiPropertyOptional({ type: RateLimitsChangeDto })
  @IsOptional()
  @IsObject({ message: 'rate_limit_per_minute must be an object with live and/or test' })
  @ValidateNested()
  @Type(() => RateLimitsChangeDto)
  rate_limit_per_minute?: RateLimitsChangeDto;

  /**
   * Pay-as-you-go past the allowance and the grants, up to a cap; omitted or null: none (a plan change sets the
   * whole plan, so one without it ends the overage).
   */
  @ApiPropertyOptional({ type: OverageChangeDto, nullable: true })
  @IsOptional()
  @IsObject({ message: 'overage must be an object with credit_cap and price_per_credit' })
  @ValidateNested()
  @Type(() => OverageChangeDto)
  overage?: OverageChangeDto | null;
}
