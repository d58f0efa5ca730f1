import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, ValidateBy } from 'class-validator';
import { decodeFeedbackCursor } from '../feedback-cursor.js';

const LIMIT_MESSAGE = 'limit must be an integer from 1 to 200';
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;

export class FeedbackQueryDto {
  /** Entries per page. Default 50. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(200, { message: LIMIT_MESSAGE })
  limit?: number;

  /** `next_cursor` of the previous page. */
  @IsOptional()
  @IsString()
  @ValidateBy({
    name: 'isFeedbackCursor',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && decodeFeedbackCursor(value) !== undefined,
      defaultMessage: () => 'cursor must be the next_cursor of a previous page',
    },
  })
  cursor?: string;
}

@ApiSchema({ name: 'FeedbackJudgment' })
export class JudgmentDto {
  /** The search judged. */
  request_id!: string;

  /** Its query. */
  query!: string;

  /** A page. */
  url!: string;

  /** 0: shown and not used; 1: used; more: a graded score. */
  gain!: number;
}

@ApiSchema({ name: 'FeedbackEntry' })
export class FeedbackEntryDto {
  feedback_id!: string;

  /** When it was received. */
  created_at!: string;

  /** The project of the key that sent it. */
  project_id!: string;

  /** The key that sent it. */
  key_id!: string;

  /** The search it was filed under (see POST /feedback), or null. */
  search_request_id!: string | null;

  /** The feedback as received (validated fields only). */
  @ApiProperty({ type: 'object', additionalProperties: true })
  feedback!: Record<string, unknown>;

  /** What it judged. */
  judgments!: JudgmentDto[];
}

@ApiSchema({ name: 'FeedbackPage' })
export class FeedbackPageDto {
  /** Newest first. */
  entries!: FeedbackEntryDto[];

  /** Pass as `cursor` for the next page; null on the last. */
  next_cursor!: string | null;
}
