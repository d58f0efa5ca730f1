import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { PLAN_NAMES, type PlanName } from '../plans.js';

/** The most a PostgreSQL integer column (the rate limits) holds. */
const MAX_RATE = 2_147_483_647;
/** Allowances are whole credits; past this a JavaScript number stops counting them exactly. */
const MAX_ALLOWANCE = Number.MAX_SAFE_INTEGER;

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
}
