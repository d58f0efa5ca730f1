import { ApiHideProperty, ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { RefusedOption } from '../../http/dto/refused-option.js';
import { CITATION_FORMATS, type CitationFormat } from '../report/citations.js';
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

  // Options of Tavily's research that a task here cannot keep (its record has no place for them): a 400 names them.
  @ApiHideProperty()
  @RefusedOption('research tasks here search every site; leave it out, or filter the report sources yourself')
  include_domains?: unknown;

  @ApiHideProperty()
  @RefusedOption('research tasks here search every site; leave it out, or filter the report sources yourself')
  exclude_domains?: unknown;

  @ApiHideProperty()
  @RefusedOption("the report's length follows the model (mini or pro); leave it out")
  output_length?: unknown;
}
