import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { IsCalendarDate } from '../../../http/dto/calendar-date.js';

/** The depths Tavily's POST /org-usage filters on. The ledger records search depth fast and ultra-fast as basic. */
export const ORG_USAGE_DEPTHS = ['basic', 'advanced', 'fast', 'pro', 'mini', 'auto', 'ultra-fast'] as const;
export type OrgUsageDepth = (typeof ORG_USAGE_DEPTHS)[number];

/** POST /org-usage (Tavily's OpenAPI): the organization, by name, and the window and filters of its usage. */
@ApiSchema({ name: 'OrgUsageRequest' })
export class OrgUsageRequestDto {
  /** The organization's exact name (case-sensitive): the organization of the key that authenticates. */
  @ApiProperty({ example: 'Acme Inc' })
  // Checked from the bottom up: a missing name is reported as missing, not as too long.
  @MaxLength(200, { message: 'organization_name must be at most 200 characters' })
  @MinLength(1, { message: 'organization_name is required' })
  @IsString({ message: 'organization_name is required' })
  organization_name!: string;

  /** First day (YYYY-MM-DD, UTC, inclusive). Default: the first day of the current billing month. */
  @ApiPropertyOptional({ format: 'date', example: '2026-05-01' })
  @IsOptional()
  @IsCalendarDate()
  start_date?: string;

  /** Last day (YYYY-MM-DD, UTC, inclusive). Default: today. */
  @ApiPropertyOptional({ format: 'date', example: '2026-05-27' })
  @IsOptional()
  @IsCalendarDate()
  end_date?: string;

  /** Only the keys of this project. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'project_id must be a project id (UUID)' })
  project_id?: string;

  /** Only the calls of this depth (the research model for research). */
  @ApiPropertyOptional({ enum: ORG_USAGE_DEPTHS })
  @IsOptional()
  @IsIn(ORG_USAGE_DEPTHS, { message: `depth must be one of: ${ORG_USAGE_DEPTHS.join(', ')}` })
  depth?: OrgUsageDepth;
}
