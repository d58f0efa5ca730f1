import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ResearchStatus } from '../jobs/research-job.js';
import { RESEARCH_MODELS, type RequestedModel } from '../research-pricing.js';

const STATUSES = ['pending', 'in_progress', 'completed', 'failed'];

/** A source a report drew on. */
@ApiSchema({ name: 'ResearchSource' })
export class ResearchSourceDto {
  /** The page's title. */
  title!: string;
  /** The page's address. */
  url!: string;
  /** The site's icon, when known. */
  favicon?: string | null;
}

/** Credits a task was billed. */
@ApiSchema({ name: 'ResearchUsage' })
export class ResearchUsageDto {
  /** 0 until the task completes, and for a failed task. */
  credits!: number;
}

/** POST /research without `stream`: the task as submitted. */
@ApiSchema({ name: 'ResearchSubmitted' })
export class ResearchSubmittedDto {
  /** The task's id, for GET /research/{request_id}. */
  request_id!: string;
  /** When the task was submitted (ISO 8601). */
  created_at!: string;
  /** `pending` at submission (`in_progress`, `completed` or `failed` when an Idempotency-Key replays it later). */
  @ApiProperty({ enum: STATUSES })
  status!: ResearchStatus;
  /** The input, as submitted. */
  input!: string;
  /** The model, as requested (`auto` stays `auto`). */
  @ApiProperty({ enum: RESEARCH_MODELS })
  model!: RequestedModel;
  /** Seconds this response took. */
  response_time!: number;
}

/** GET /research/{request_id}: 202 while pending or in progress, 200 once completed or failed. */
@ApiSchema({ name: 'ResearchTask' })
export class ResearchTaskDto {
  /** The task's id. */
  request_id!: string;
  /** `pending`, `in_progress`, `completed` or `failed`. */
  @ApiProperty({ enum: STATUSES })
  status!: ResearchStatus;
  /** When the task was submitted (ISO 8601). */
  created_at!: string;
  /** The input, as submitted. */
  input!: string;
  /** The model, as requested. */
  @ApiProperty({ enum: RESEARCH_MODELS })
  model!: RequestedModel;
  /** Completed: the markdown report with citations, or the object matching output_schema. Otherwise null. */
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }, { type: 'null' }] })
  content!: string | Record<string, unknown> | null;
  /** Completed: the sources the report draws on, in citation order. Otherwise empty. */
  sources!: ResearchSourceDto[];
  /** Seconds from submission to completion or failure (so far, while running). */
  response_time!: number;
  /** Failed: why. */
  error?: string;
  /** With include_usage. */
  usage?: ResearchUsageDto;
}
