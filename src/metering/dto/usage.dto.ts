import { ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'UsageItem' })
export class UsageItemDto {
  /** What was priced, e.g. search:basic, answer:basic, extract:basic or map. */
  item!: string;

  /** Credits. */
  credits!: number;
}

/** Present when the request set include_usage: true. */
@ApiSchema({ name: 'Usage' })
export class UsageDto {
  /** Credits this call was charged. */
  credits!: number;

  /** How the credits add up. */
  breakdown?: UsageItemDto[];
}
