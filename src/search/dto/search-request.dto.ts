import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';

export const SEARCH_DEPTHS = ['basic', 'advanced', 'fast', 'ultra-fast'] as const;
export const TOPICS = ['general', 'news', 'finance'] as const;
export const TIME_RANGES = ['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'] as const;
export const MAX_QUERY_LENGTH = 400;

/** `YYYY-MM-DD` naming a real calendar day. */
export function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCalendarDate',
      validator: {
        validate: isCalendarDate,
        defaultMessage: (args) => `${args?.property} must be a date written YYYY-MM-DD`,
      },
    },
    options,
  );
}

/**
 * POST /search, as Tavily's clients send it (shared/spec/compat-reference.md §1). Unknown fields are dropped by the
 * validation pipe; `api_key` was taken out by the metering pipeline before.
 */
export class SearchRequestDto {
  @IsString()
  @MaxLength(MAX_QUERY_LENGTH, { message: `query must be at most ${MAX_QUERY_LENGTH} characters` })
  @Matches(/\S/, { message: 'query must not be empty' })
  query!: string;

  @IsOptional()
  @IsIn(SEARCH_DEPTHS)
  search_depth?: (typeof SEARCH_DEPTHS)[number];

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(20)
  max_results?: number;

  @IsOptional()
  @IsIn(TOPICS)
  topic?: (typeof TOPICS)[number];

  @IsOptional()
  @IsIn(TIME_RANGES)
  time_range?: (typeof TIME_RANGES)[number];

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(36500)
  days?: number;

  @IsOptional()
  @IsCalendarDate()
  start_date?: string;

  @IsOptional()
  @IsCalendarDate()
  end_date?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(300)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  include_domains?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(150)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  exclude_domains?: string[];

  @IsOptional()
  @IsIn([true, false, 'markdown', 'text'])
  include_raw_content?: boolean | 'markdown' | 'text';

  @IsOptional()
  @IsBoolean()
  include_images?: boolean;

  @IsOptional()
  @IsBoolean()
  include_image_descriptions?: boolean;

  @IsOptional()
  @IsBoolean()
  include_favicon?: boolean;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3)
  chunks_per_source?: number;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  country?: string;

  @IsOptional()
  @IsIn([true, false, 'basic', 'advanced'])
  include_answer?: boolean | 'basic' | 'advanced';

  @IsOptional()
  @IsBoolean()
  auto_parameters?: boolean;

  @IsOptional()
  @IsBoolean()
  exact_match?: boolean;

  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}
