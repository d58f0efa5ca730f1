/**
 * The normalized result records of POST /search/{vertical}, one class per kind of record, in the *-results.dto.ts
 * files beside this one (the OpenAPI schemas are generated from them). Every field is always present: `null` (or an
 * empty array) when no provider knew it. Every record names the `provider` that filled it.
 *
 * Conventions: prices and counts are numbers; `currency` is an ISO 4217 code when it is known; `*_date` fields are
 * `YYYY-MM-DD` days except `published_date` (news and web results), which is a full ISO 8601 instant.
 */

import { ApiProperty } from '@nestjs/swagger';

/** Who fills records: the local documents index (its structured data), an upstream, or the YouTube reader. */
export const VERTICAL_PROVIDERS = ['local', 'searxng', 'brave', 'serpapi', 'youtube'] as const;

export type VerticalProvider = (typeof VERTICAL_PROVIDERS)[number];

/** What every record has: the provider that filled it. */
export abstract class VerticalRecord {
  /**
   * The provider that filled this record: `local` (the structured data of the local documents index), `searxng`,
   * `brave`, `serpapi` or `youtube`.
   */
  @ApiProperty({ enum: VERTICAL_PROVIDERS })
  provider!: VerticalProvider;
}
