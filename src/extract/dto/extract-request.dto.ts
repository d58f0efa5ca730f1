import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  MaxLength,
  Max,
  Min,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';

function firstInvalidUrl(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  for (const entry of value) {
    if (typeof entry !== 'string') return String(entry);
    try {
      const url = new URL(entry.trim());
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return entry;
    } catch {
      return entry;
    }
  }
  return null;
}

/** A non-empty array of absolute http(s) URLs; the message names the first one that is not. */
@ValidatorConstraint({ name: 'httpUrls' })
class HttpUrlList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return Array.isArray(value) && value.length > 0 && firstInvalidUrl(value) === null;
  }

  defaultMessage(args: ValidationArguments): string {
    if (!Array.isArray(args.value)) return 'urls must be a URL or an array of URLs.';
    if (args.value.length === 0) return 'urls must name at least one URL.';
    return `Invalid URL: ${JSON.stringify(firstInvalidUrl(args.value))} is not an absolute http or https URL.`;
  }
}

/** POST /extract, as Tavily's clients send it (snake_case; `urls` may be a single string). */
export class ExtractRequestDto {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @Validate(HttpUrlList)
  urls!: string[];

  @IsOptional()
  @IsIn(['basic', 'advanced'], { message: "extract_depth must be 'basic' or 'advanced'." })
  extract_depth?: 'basic' | 'advanced';

  @IsOptional()
  @IsIn(['markdown', 'text'], { message: "format must be 'markdown' or 'text'." })
  format?: 'markdown' | 'text';

  @IsOptional()
  @IsBoolean()
  include_images?: boolean;

  @IsOptional()
  @IsBoolean()
  include_favicon?: boolean;

  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;

  /** Seconds, per URL. */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'timeout must be a number of seconds.' })
  @Min(1, { message: 'timeout must be between 1 and 60 seconds.' })
  @Max(60, { message: 'timeout must be between 1 and 60 seconds.' })
  timeout?: number;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  query?: string;

  @IsOptional()
  @IsInt({ message: 'chunks_per_source must be an integer from 1 to 5.' })
  @Min(1, { message: 'chunks_per_source must be an integer from 1 to 5.' })
  @Max(5, { message: 'chunks_per_source must be an integer from 1 to 5.' })
  chunks_per_source?: number;
}
