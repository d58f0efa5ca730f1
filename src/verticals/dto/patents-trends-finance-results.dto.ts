import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { VerticalRecord } from './vertical-record.dto.js';

@ApiSchema({ description: 'patents: a patent or application.' })
export class PatentResult extends VerticalRecord {
  /** Title. */
  title!: string;

  /** Patent number. */
  patent_number!: string | null;

  /** Assignee. */
  assignee!: string | null;

  /** Inventors. */
  inventors!: string[];

  /** YYYY-MM-DD. */
  filing_date!: string | null;

  /** YYYY-MM-DD. */
  publication_date!: string | null;

  /** Abstract. */
  abstract!: string | null;

  /** URL. */
  url!: string | null;

  /** PDF URL. */
  pdf_url!: string | null;
}

@ApiSchema({ description: 'One point of a trend curve.' })
export class TrendPoint {
  /** The start of the period: `YYYY-MM-DD`, or an ISO instant for hourly points. */
  date!: string;

  /** The value of the period (see `value_type`). */
  value!: number;
}

export const TREND_VALUE_TYPES = ['document_count', 'relative_interest'] as const;

@ApiSchema({ description: 'trends: interest in the query over time.' })
export class TrendsResult extends VerticalRecord {
  /** The query. */
  query!: string;

  /** hour, day, week or month. */
  interval!: string;

  /**
   * document_count: matching documents of the local index published in the period; relative_interest: Google Trends'
   * 0–100 scale.
   */
  @ApiProperty({ enum: TREND_VALUE_TYPES })
  value_type!: (typeof TREND_VALUE_TYPES)[number];

  /** Interest over time. */
  points!: TrendPoint[];

  /** Related queries. */
  related_queries!: string[];
}

@ApiSchema({ description: 'finance: a quote.' })
export class FinanceResult extends VerticalRecord {
  /** Ticker symbol. */
  symbol!: string;

  /** Name. */
  name!: string | null;

  /** Price. */
  price!: number | null;

  /** ISO 4217 code. */
  currency!: string | null;

  /** Change since the previous close, in the price's currency (negative when down). */
  change!: number | null;

  /** Change in percent. */
  change_percent!: number | null;

  /** Exchange. */
  exchange!: string | null;

  /** When the price was observed, as the provider states it. */
  as_of!: string | null;

  /** URL. */
  url!: string | null;
}
