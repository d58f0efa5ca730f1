import { ApiSchema } from '@nestjs/swagger';

/** One priced item of a call. */
@ApiSchema({ name: 'UsageItem' })
export class UsageItemDto {
  /** What was priced, e.g. search:basic, answer:basic, extract:basic or map. */
  item!: string;

  /** Credits. */
  credits!: number;
}

/** The `usage` object of a metered response: what the call was charged (the metering pipeline adds it). */
@ApiSchema({ name: 'Usage', description: 'Present when the request set include_usage: true.' })
export class UsageDto {
  /** Credits this call was charged. */
  credits!: number;

  /** How the credits add up. */
  breakdown?: UsageItemDto[];
}
