import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'ErrorDetail' })
export class ErrorDetailDto {
  /** The same message (the official Tavily clients read it here). */
  error!: string;
}

/** Every error body. Some errors add context fields (reason, credits_used, credits_limit, retry_after, …). */
@ApiSchema({ name: 'Error' })
export class ErrorResponseDto {
  /** What went wrong. */
  error!: string;

  detail!: ErrorDetailDto;
}

/** 402: a monthly credit limit is reached: the organization's allowance, the project's or the key's budget. */
@ApiSchema({ name: 'QuotaError' })
export class QuotaErrorResponseDto extends ErrorResponseDto {
  /** Which limit the request would exceed. */
  @ApiProperty({ enum: ['organization', 'project', 'key'] })
  limit!: 'organization' | 'project' | 'key';

  /** Credits used this month, of that limit. */
  credits_used!: number;

  /** That limit: the organization's monthly allowance, or the project's or key's monthly credit limit. */
  credits_limit!: number;
}

/** An error that says when to retry: 429 (over the per-minute rate limit), 503 (a search node full). */
@ApiSchema({ name: 'RateLimitError' })
export class RateLimitErrorResponseDto extends ErrorResponseDto {
  /** Seconds to wait (also in the Retry-After header). */
  @ApiProperty({ type: 'integer' })
  retry_after?: number;
}
