import { IsBoolean, IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsUrlPatterns } from './url-patterns.constraint.js';

export const DEFAULTS = { maxDepth: 1, maxBreadth: 20, limit: 50, timeoutSeconds: 150 } as const;

/**
 * POST /map (compat-reference.md §3). Unknown fields, and the ones clients send that map has no use for
 * (`include_images`, `categories`, `query`, `include_usage` which the metering pipeline reads), are accepted and
 * ignored. `limit` above MAX_PAGES_PER_CALL is served as MAX_PAGES_PER_CALL.
 */
export class MapRequestDto {
  // Checked bottom-up: the first failing check is the one reported.
  @MaxLength(2048)
  @IsNotEmpty({ message: 'url is required: no starting url provided' })
  @IsString({ message: 'url is required: no starting url provided' })
  url!: string;

  @IsOptional() @IsString() @MaxLength(2000) instructions?: string | null;

  @IsOptional() @IsInt() @Min(1) @Max(5) max_depth?: number | null;

  @IsOptional() @IsInt() @Min(1) @Max(500) max_breadth?: number | null;

  @IsOptional() @IsInt() @Min(1) limit?: number | null;

  @IsOptional() @IsUrlPatterns() select_paths?: string[] | null;

  @IsOptional() @IsUrlPatterns() select_domains?: string[] | null;

  @IsOptional() @IsUrlPatterns() exclude_paths?: string[] | null;

  @IsOptional() @IsUrlPatterns() exclude_domains?: string[] | null;

  @IsOptional() @IsBoolean() allow_external?: boolean | null;

  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(10) @Max(150) timeout?: number | null;
}
