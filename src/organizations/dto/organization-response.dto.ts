import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PLAN_NAMES } from '../plans.js';

const ROLES = ['owner', 'admin', 'member'];

@ApiSchema({ name: 'RateLimits' })
export class RateLimitsDto {
  /** Requests per minute of a live key. */
  @ApiProperty({ type: 'integer' })
  live!: number;

  /** Requests per minute of a test key. */
  @ApiProperty({ type: 'integer' })
  test!: number;
}

@ApiSchema({ name: 'PlanOverage' })
export class PlanOverageDto {
  /** The most overage credits a month. */
  credit_cap!: number;

  /** Price of one overage credit, a decimal string. */
  price_per_credit!: string;
}

@ApiSchema({ name: 'Organization' })
export class OrganizationDto {
  /** Organization id. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** Name. */
  name!: string;

  /** Plan. */
  @ApiProperty({ enum: PLAN_NAMES })
  plan!: string;

  /** Credits per month. */
  monthly_credit_allowance!: number;

  rate_limit_per_minute!: RateLimitsDto;

  /** The caller's role. */
  @ApiProperty({ enum: ROLES })
  role!: string;

  /** Created. */
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

@ApiSchema({ name: 'CreatedOrganization' })
export class CreatedOrganizationDto extends OrganizationDto {
  /** The project every new organization starts with ("Default"): a first key needs no project step. */
  @ApiProperty({ format: 'uuid' })
  default_project_id!: string;
}

@ApiSchema({ name: 'OrganizationPlan' })
export class OrganizationPlanDto {
  /** Organization id. */
  @ApiProperty({ format: 'uuid' })
  org_id!: string;

  /** Plan. */
  @ApiProperty({ enum: PLAN_NAMES })
  plan!: string;

  /** Credits per month. */
  monthly_credit_allowance!: number;

  rate_limit_per_minute!: RateLimitsDto;

  /** Pay-as-you-go past the allowance and grants; null: none. */
  @ApiProperty({ type: PlanOverageDto, nullable: true })
  overage!: PlanOverageDto | null;
}

@ApiSchema({ name: 'OrganizationList' })
export class OrganizationListDto {
  organizations!: OrganizationDto[];
}

@ApiSchema({ name: 'Member' })
export class MemberDto {
  /** User id. */
  @ApiProperty({ format: 'uuid' })
  user_id!: string;

  /** E-mail address. */
  email!: string;

  /** Role. */
  @ApiProperty({ enum: ROLES })
  role!: string;

  /** Added. */
  @ApiProperty({ format: 'date-time' })
  added_at!: string;
}

@ApiSchema({ name: 'MemberList' })
export class MemberListDto {
  members!: MemberDto[];
}

@ApiSchema({ name: 'AddedMember' })
export class AddedMemberDto {
  /** User id. */
  @ApiProperty({ format: 'uuid' })
  user_id!: string;

  /** E-mail address. */
  email!: string;

  /** Role. */
  @ApiProperty({ enum: ['admin', 'member'] })
  role!: string;
}

@ApiSchema({ name: 'RemovedMember' })
export class RemovedMemberDto {
  /** The user who is no longer a member. */
  @ApiProperty({ format: 'uuid' })
  user_id!: string;

  /** Always true. */
  removed!: boolean;
}
