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

/** 402: the monthly credit allowance is exhausted. */
@ApiSchema({ name: 'QuotaError' })
export class QuotaErrorResponseDto extends ErrorResponseDto {
  /** Credits used this month. */
  credits_used!: number;

  /** The organization's monthly allowance. */
  credits_limit!: number;
}

/** 429: over the per-minute rate limit. */
@ApiSchema({ name: 'RateLimitError' })
export class RateLimitErrorResponseDto extends ErrorResponseDto {
  /** Seconds to wait (also in the Retry-After header). */
  @ApiProperty({ type: 'integer' })
  retry_after?: number;
}
