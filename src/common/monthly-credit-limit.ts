import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min, ValidateIf } from 'class-validator';

/** The largest monthly credit limit a key or project may have (well inside a JavaScript safe integer). */
export const MAX_MONTHLY_CREDIT_LIMIT = 1_000_000_000_000;

/**
 * `monthly_credit_limit` of a key or a project: whole credits per calendar month (UTC), or null for none. Declared
 * once, for every DTO that takes it.
 */
export function MonthlyCreditLimit(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      nullable: true,
      minimum: 0,
      maximum: MAX_MONTHLY_CREDIT_LIMIT,
      description:
        'Credits this may spend per calendar month (UTC), on top of the organization’s own limit; null: no limit of ' +
        'its own.',
    }),
    IsOptional(),
    ValidateIf((_, value) => value !== null),
    IsInt({ message: 'monthly_credit_limit must be a whole number of credits or null' }),
    Min(0, { message: 'monthly_credit_limit must be 0 or more' }),
    Max(MAX_MONTHLY_CREDIT_LIMIT, { message: `monthly_credit_limit must be at most ${MAX_MONTHLY_CREDIT_LIMIT}` }),
  );
}
