import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { IsFeedbackScore, SCORE_SCHEMA } from './feedback-score.js';

/** Limits of one feedback: enough for any search's results, small enough that storing it stays cheap. */
export const FEEDBACK_LIMITS = {
  listItems: 100,
  scoresPerItem: 20,
  url: 2048,
  id: 160,
  label: 100,
  comment: 4000,
  responseDelivered: 50_000,
  sessionId: 200,
} as const;
const L = FEEDBACK_LIMITS;

@ApiSchema({ name: 'FeedbackLabeledScore' })
export class LabeledScoreDto {
  /** What the score measures (e.g. "relevance", "freshness"). */
  @ApiProperty({ maxLength: L.label })
  @IsString()
  @MaxLength(L.label)
  label!: string;

  /** The score: a number, or a text of at most 100 characters. */
  @ApiProperty(SCORE_SCHEMA)
  @IsFeedbackScore()
  value!: number | string;
}

@ApiSchema({ name: 'FeedbackUrlScore' })
export class UrlScoreDto {
  /** A result's `id`, as the search answered it. */
  @ApiPropertyOptional({ maxLength: L.id })
  @IsOptional()
  @IsString()
  @MaxLength(L.id)
  id?: string;

  /** A page's URL (a result's, or one found elsewhere). */
  @ApiPropertyOptional({ maxLength: L.url })
  @IsOptional()
  @IsString()
  @MaxLength(L.url)
  url?: string;

  /**
   * How useful the page was to the agent. As a judgment: a number from 0 to 1 counts as relevant from 0.5; a larger
   * number is a graded relevance (rounded: 0, 1, 2, 3 …).
   */
  @ApiPropertyOptional(SCORE_SCHEMA)
  @IsOptional()
  @IsFeedbackScore()
  agent_score?: number | string;

  @ApiPropertyOptional({ type: [LabeledScoreDto], maxItems: L.scoresPerItem })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.scoresPerItem)
  @ValidateNested({ each: true })
  @Type(() => LabeledScoreDto)
  scores?: LabeledScoreDto[];

  @ApiPropertyOptional({ maxLength: L.comment })
  @IsOptional()
  @IsString()
  @MaxLength(L.comment)
  comment?: string;
}

/**
 * POST /feedback, as @tavily/core's `feedback()` sends it: which results of a search were used and how good they
 * were. Every field is optional; unknown fields (the client forwards any extra option) are dropped.
 */
@ApiSchema({ name: 'FeedbackRequest' })
export class FeedbackRequestDto {
  /** The search the feedback is about: its `request_id`. */
  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._:-]{1,128}$/, { message: 'request_id must be a request id (1 to 128 of A-Z a-z 0-9 . _ : -)' })
  request_id?: string;

  /** The client's session, as it names it. */
  @ApiPropertyOptional({ maxLength: L.sessionId })
  @IsOptional()
  @IsString()
  @MaxLength(L.sessionId)
  session_id?: string;

  /** The agent's score of the results as a whole. */
  @ApiPropertyOptional(SCORE_SCHEMA)
  @IsOptional()
  @IsFeedbackScore()
  agent_score?: number | string;

  /** A person's score of the results as a whole. */
  @ApiPropertyOptional(SCORE_SCHEMA)
  @IsOptional()
  @IsFeedbackScore()
  human_score?: number | string;

  @ApiPropertyOptional({ type: [LabeledScoreDto], maxItems: L.scoresPerItem })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.scoresPerItem)
  @ValidateNested({ each: true })
  @Type(() => LabeledScoreDto)
  extra_scores?: LabeledScoreDto[];

  @ApiPropertyOptional({ maxLength: L.comment })
  @IsOptional()
  @IsString()
  @MaxLength(L.comment)
  comment?: string;

  /** What the agent answered with the results. */
  @ApiPropertyOptional({ maxLength: L.responseDelivered })
  @IsOptional()
  @IsString()
  @MaxLength(L.responseDelivered)
  response_delivered?: string;

  /** URLs of the results the agent used. */
  @ApiPropertyOptional({ type: [String], maxItems: L.listItems })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.listItems)
  @IsString({ each: true })
  @MaxLength(L.url, { each: true })
  used_urls?: string[];

  /** `id`s of the results the agent used. */
  @ApiPropertyOptional({ type: [String], maxItems: L.listItems })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.listItems)
  @IsString({ each: true })
  @MaxLength(L.id, { each: true })
  used_ids?: string[];

  /** The citations the answer carried (URLs, or the client's own references). */
  @ApiPropertyOptional({ type: [String], maxItems: L.listItems })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.listItems)
  @IsString({ each: true })
  @MaxLength(L.url, { each: true })
  used_citations?: string[];

  /** A score per result (by `id`) or page (by `url`). */
  @ApiPropertyOptional({ type: [UrlScoreDto], maxItems: L.listItems })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.listItems)
  @ValidateNested({ each: true })
  @Type(() => UrlScoreDto)
  urls_scores?: UrlScoreDto[];
}
