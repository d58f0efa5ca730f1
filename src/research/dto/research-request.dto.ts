import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { DomainList, MAX_EXCLUDE_DOMAINS, MAX_INCLUDE_DOMAINS } from '../../search/dto/domain-list.js';
import { CITATION_FORMATS, type CitationFormat } from '../report/citations.js';
import { DEFAULT_OUTPUT_LENGTH, OUTPUT_LENGTHS, type OutputLength } from '../report/output-length.js';
import { RESEARCH_MODELS, type RequestedModel } from '../research-pricing.js';

export const MAX_INPUT_LENGTH = 4000;

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** POST /research. Unknown fields (and `api_key`, taken earlier) are ignored. */
@ApiSchema({ name: 'ResearchRequest' })
export class ResearchRequestDto {
  /** The research task or question. */
  @ApiProperty({ minLength: 1, example: 'How do the EU and US regulate facial recognition in public spaces?' })
  @Transform(trimmed)
  @MaxLength(MAX_INPUT_LENGTH, { message: `input must be at most ${MAX_INPUT_LENGTH} characters` })
  @IsNotEmpty({ message: 'input must not be empty' })
  @IsString({ message: 'input must be a string' })
  input!: string;

  /** `mini` (fewer sub-questions, basic depth), `pro` (more, advanced depth) or `auto` (decided by the input). */
  @ApiPropertyOptional({ enum: RESEARCH_MODELS, default: 'auto' })
  @IsOptional()
  @IsIn(RESEARCH_MODELS, { message: `model must be one of: ${RESEARCH_MODELS.join(', ')}` })
  model?: RequestedModel;

  /** Answer with a Server-Sent Events stream of the task's progress instead of at once. */
  @IsOptional()
  @IsBoolean({ message: 'stream must be a boolean' })
  stream?: boolean;

  /** A JSON Schema the result's `content` must match (needs a language model, LLM_BASE_URL). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject({ message: 'output_schema must be a JSON object (a JSON Schema)' })
  output_schema?: Record<string, unknown>;

  /** How the report cites its sources. */
  @ApiPropertyOptional({ enum: CITATION_FORMATS, default: 'numbered' })
  @IsOptional()
  @IsIn(CITATION_FORMATS, { message: `citation_format must be one of: ${CITATION_FORMATS.join(', ')}` })
  citation_format?: CitationFormat;

  /**
   * Only sources from these sites (at most 300): every sub-question's search, of the local index and of the upstream
   * engines, is restricted to them. A domain (example.com, which includes its subdomains), a wildcard (*.gov) or a
   * path prefix (example.com/blog).
   */
  @DomainList(MAX_INCLUDE_DOMAINS)
  include_domains?: string[];

  /** Never a source from these sites (at most 150): a domain, a wildcard (*.example.com) or a path prefix. */
  @DomainList(MAX_EXCLUDE_DOMAINS)
  exclude_domains?: string[];

  /** How long the report is: `short`, `medium` or `long` (both the extractive report and a model's). */
  @ApiPropertyOptional({ enum: OUTPUT_LENGTHS, default: DEFAULT_OUTPUT_LENGTH })
  @IsOptional()
  @IsIn(OUTPUT_LENGTHS, { message: `output_length must be one of: ${OUTPUT_LENGTHS.join(', ')}` })
  output_length?: OutputLength;
}
