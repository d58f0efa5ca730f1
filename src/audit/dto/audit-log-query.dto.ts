import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { toInteger } from '../../keys/dto/key-activity-filter.dto.js';
import { decodeCursor } from '../../metering/ledger/ledger-cursor.js';
import { IsCalendarDate } from '../../http/dto/calendar-date.js';
import { AUDITED_ACTIONS, type AuditedAction } from '../audited-events.js';

const LIMIT_MESSAGE = 'limit must be an integer from 1 to 500';

/** Filters of the audit log; every one optional. */
export class AuditLogQueryDto {
  /** Only this action (the event's type, e.g. KeyRevoked). */
  @IsOptional()
  @IsIn(AUDITED_ACTIONS, { message: `action must be one of: ${AUDITED_ACTIONS.join(', ')}` })
  action?: AuditedAction;

  /** Only what this user did (their e-mail address), or this actor id (an operator's, a key's, the system's). */
  @IsOptional()
  @IsString({ message: 'actor must be an e-mail address or an actor id' })
  @MaxLength(320, { message: 'actor must be an e-mail address or an actor id' })
  actor?: string;

  /** Only what was done to this organization, member (user id), project or key. */
  @IsOptional()
  @IsUUID('all', { message: 'target_id must be the id (UUID) of the organization, a member, a project or a key' })
  target_id?: string;

  /** Only actions on or after this UTC day (YYYY-MM-DD). */
  @IsOptional()
  @IsCalendarDate()
  start_date?: string;

  /** Only actions on or before this UTC day (YYYY-MM-DD). */
  @IsOptional()
  @IsCalendarDate()
  end_date?: string;

  /** Entries per page, newest first (JSON only: a CSV export holds every matching entry). Default 50. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(500, { message: LIMIT_MESSAGE })
  limit?: number;

  /** `next_cursor` of the previous page. */
  @IsOptional()
  @ValidateBy({
    name: 'isAuditCursor',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && decodeCursor(value) !== undefined,
      defaultMessage: () => 'cursor must be the next_cursor of a previous page',
    },
  })
  cursor?: string;
}
