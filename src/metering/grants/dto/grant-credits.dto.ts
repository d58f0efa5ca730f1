import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsISO8601, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** Grants are whole credits; past this a JavaScript number stops counting them exactly. */
const MAX_CREDITS = Number.MAX_SAFE_INTEGER;

@ApiSchema({ name: 'GrantCredits' })
export class GrantCreditsDto {
  /** Credits granted (each month, with every_month). */
  @IsInt({ message: 'credits must be a whole number of credits' })
  @Min(1, { message: 'credits must be at least 1' })
  @Max(MAX_CREDITS)
  credits!: number;

  /** Grant `credits` every calendar month (UTC) from this month on, instead of once. Default: false. */
  @IsOptional()
  @IsBoolean({ message: 'every_month must be true or false' })
  every_month?: boolean;

  /** When the grant's unused part stops counting (ISO 8601, e.g. 2026-12-31 or 2026-12-31T12:00:00Z); none by default. */
  @ApiPropertyOptional({ type: 'string', format: 'date-time' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expires_at must be an ISO 8601 date or date-time' })
  expires_at?: string;

  /** A note for the record (up to 500 characters). */
  @ApiProperty({ required: false, maxLength: 500 })
  @IsOptional()
  @IsString({ message: 'note must be a string' })
  @MaxLength(500, { message: 'note must be at most 500 characters' })
  note?: string;
}
