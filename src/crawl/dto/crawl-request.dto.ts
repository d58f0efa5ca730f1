import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MapRequestDto } from './map-request.dto.js';

/**
 * POST /crawl: map's fields plus how each page is extracted. `chunks_per_source` only matters with `instructions`
 * (tavily-mcp always sends 3, so it is accepted without them).
 */
export class CrawlRequestDto extends MapRequestDto {
  @IsOptional() @IsIn(['basic', 'advanced']) extract_depth?: 'basic' | 'advanced' | null;

  @IsOptional() @IsIn(['markdown', 'text']) format?: 'markdown' | 'text' | null;

  @IsOptional() @IsBoolean() include_images?: boolean | null;

  @IsOptional() @IsBoolean() include_favicon?: boolean | null;

  @IsOptional() @IsInt() @Min(1) @Max(5) chunks_per_source?: number | null;
}
