import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';

/** include_domains takes at most this many entries (as Tavily's search does). */
export const MAX_INCLUDE_DOMAINS = 300;
/** exclude_domains takes at most this many entries. */
export const MAX_EXCLUDE_DOMAINS = 150;
const MAX_ENTRY_LENGTH = 500;

/**
 * An optional list of site entries (see index/domain-patterns.ts: a domain with its subdomains, a wildcard, a path
 * prefix) of at most `maxItems`, each a string of at most 500 characters: include_domains and exclude_domains of
 * POST /search and POST /research.
 */
export function DomainList(maxItems: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'array', items: { type: 'string', maxLength: MAX_ENTRY_LENGTH }, maxItems }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(maxItems),
    IsString({ each: true }),
    MaxLength(MAX_ENTRY_LENGTH, { each: true }),
  );
}
