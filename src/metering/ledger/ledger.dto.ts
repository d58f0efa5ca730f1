import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateBy } from 'class-validator';
import { KeyActivityFilterDto, toInteger } from '../../keys/dto/key-activity-filter.dto.js';
import type { MeteredOperation } from '../events/credits-charged.event.js';
import { decodeCursor } from './ledger-cursor.js';
import { REQUEST_ID, REQUEST_ID_MESSAGE } from '../../http/request-id.js';

/** Every metered operation (a Record, so that a new operation in the event type fails to compile here). */
const OPERATIONS: Record<MeteredOperation, true> = {
  search: true,
  vertical: true,
  extract: true,
  map: true,
  crawl: true,
  research: true,
};
export const METERED_OPERATIONS = Object.keys(OPERATIONS) as MeteredOperation[];

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const MONTH_MESSAGE = 'month must be a calendar month written YYYY-MM, e.g. 2026-11';
const LIMIT_MESSAGE = 'limit must be an integer from 1 to 500';

export const LEDGER_ORDERS = ['desc', 'asc'] as const;
export type LedgerOrder = (typeof LEDGER_ORDERS)[number];
export const CSV_FORMATS = ['audit', 'finance'] as const;
export type CsvFormat = (typeof CSV_FORMATS)[number];

export class UsageQueryDto {
  /** Default: the current UTC month. */
  @IsOptional()
  @IsString({ message: MONTH_MESSAGE })
  @Matches(MONTH, { message: MONTH_MESSAGE })
  month?: string;
}

/** The ledger's month: a calendar month, or every month. */
export const ALL_MONTHS = 'all';
const LEDGER_MONTH = /^(\d{4}-(0[1-9]|1[0-2])|all)$/;
const LEDGER_MONTH_MESSAGE = `month must be a calendar month written YYYY-MM, e.g. 2026-11, or ${ALL_MONTHS}`;

export class LedgerQueryDto extends KeyActivityFilterDto {
  /** YYYY-MM, or `all` for every month. Default: the current UTC month (as GET /orgs/{org_id}/usage). */
  @IsOptional()
  @IsString({ message: LEDGER_MONTH_MESSAGE })
  @Matches(LEDGER_MONTH, { message: LEDGER_MONTH_MESSAGE })
  month?: string;

  @IsOptional()
  @IsIn(METERED_OPERATIONS, { message: `operation must be one of: ${METERED_OPERATIONS.join(', ')}` })
  operation?: MeteredOperation;

  /** Entries per page (JSON only: a CSV export holds every matching entry). Default 100. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(500, { message: LIMIT_MESSAGE })
  limit?: number;

  /** Only the charges of this call (its X-Request-Id; an MCP request's tool calls are `<request id>:<n>`). */
  @IsOptional()
  @Matches(REQUEST_ID, { message: REQUEST_ID_MESSAGE })
  request_id?: string;

  /** desc (default): newest first; asc: the event store's order. A cursor belongs to the order it was read in. */
  @IsOptional()
  @IsIn(LEDGER_ORDERS, { message: `order must be one of: ${LEDGER_ORDERS.join(', ')}` })
  order?: LedgerOrder;

  /**
   * CSV only: audit (default) has every column of the entry as stored; finance has readable columns (names, the
   * price explained) for a spreadsheet.
   */
  @IsOptional()
  @IsIn(CSV_FORMATS, { message: `format must be one of: ${CSV_FORMATS.join(', ')}` })
  format?: CsvFormat;

  /** `next_cursor` of the previous page. */
  @IsOptional()
  @ValidateBy({
    name: 'isLedgerCursor',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && decodeCursor(value) !== undefined,
      defaultMessage: () => 'cursor must be the next_cursor of a previous page',
    },
  })
  cursor?: string;
}
