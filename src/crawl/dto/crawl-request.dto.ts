import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MapRequestDto } from './map-request.dto.js';

/**
 * POST /crawl: map's fields plus how each page is extracted. `chunks_per_source` only matters with `instructions`
 * (tavily-mcp always sends 3, so it is accepted without them).
 */
@ApiSchema({ name: 'CrawlRequest' })
export class CrawlRequestDto extends MapRequestDto {
  /**
   * 'basic' (default): the main text. 'advanced': also tables, figure captions and embedded media, and pages built
   * by JavaScript are rendered in a browser; costs twice as much.
   */
  @ApiPropertyOptional({ enum: ['basic', 'advanced'], nullable: true, default: 'basic' })
  @IsOptional()
  @IsIn(['basic', 'advanced'])
  extract_depth?: 'basic' | 'advanced' | null;

  /** Format of `raw_content`: 'markdown' (default) or plain 'text'. */
  @ApiPropertyOptional({ enum: ['markdown', 'text'], nullable: true, default: 'markdown' })
  @IsOptional()
  @IsIn(['markdown', 'text'])
  format?: 'markdown' | 'text' | null;

  /** Also list each page's main images. Default false. */
  @IsOptional() @IsBoolean() include_images?: boolean | null;

  /** Add each page's favicon URL. Default false. */
  @IsOptional() @IsBoolean() include_favicon?: boolean | null;

  /** With instructions: passages per page, 1 to 5. Default 3. */
  @ApiPropertyOptional({ type: 'integer', nullable: true, default: 3 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  chunks_per_source?: number | null;
}
