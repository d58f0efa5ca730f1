import { ApiProperty, ApiSchema } from '@nestjs/swagger';

const STATUSES = ['active', 'spent', 'expired', 'revoked', 'scheduled'];

/** A credit grant and its balance in a month. */
@ApiSchema({ name: 'CreditGrant' })
export class CreditGrantDto {
  /** Grant id. */
  @ApiProperty({ format: 'uuid' })
  grant_id!: string;

  /** Credits granted (each month, for a monthly grant). */
  credits!: number;

  /** `once`: they last until spent or expired, across months; `monthly`: `credits` every calendar month (UTC). */
  @ApiProperty({ enum: ['once', 'monthly'] })
  recurrence!: string;

  /** When its unused part stops counting; null: never. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  expires_at!: string | null;

  /** The operator's note. */
  @ApiProperty({ type: 'string', nullable: true })
  note!: string | null;

  /** Granted. */
  @ApiProperty({ format: 'date-time' })
  granted_at!: string;

  /** Revoked (it then ended as an expiry ends it); null if not. */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  revoked_at!: string | null;

  /** Credits it paid in the month. */
  used!: number;

  /** Credits it can still pay in the month (now, for the current month; 0 once it has ended). */
  remaining!: number;

  /** `active` (can pay), `spent` (nothing left this month), `expired`, `revoked`, `scheduled` (from a later month). */
  @ApiProperty({ enum: STATUSES })
  status!: string;
}

/** An organization's credit grants that count this month. */
@ApiSchema({ name: 'CreditGrantList' })
export class CreditGrantListDto {
  /** Newest first, with what each paid and has left this month. */
  grants!: CreditGrantDto[];
}

/** Pay-as-you-go past the allowance and the grants, and what it came to in the month. */
@ApiSchema({ name: 'Overage' })
export class OverageDto {
  /** The most overage credits a month. */
  credit_cap!: number;

  /** Price of one overage credit, a decimal string (e.g. "0.008"). */
  price_per_credit!: string;

  /** Overage credits of the month. */
  credits_used!: number;

  /** credits_used × price_per_credit, a decimal string. */
  amount!: string;
}
