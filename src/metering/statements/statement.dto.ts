import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS, type KeyEnvironment } from '../../keys/events/key.events.js';

/** Credits and how many entries make them. */
export class StatementAmountDto {
  /** Credits. */
  credits!: number;

  /** Entries (charges or adjustments) summed. */
  @ApiProperty({ type: 'integer' })
  charges!: number;
}

@ApiSchema({ name: 'StatementTotals' })
export class StatementTotalsDto {
  /** Live keys' charges: billed, and counted against the allowance. */
  live!: StatementAmountDto;

  /** Test keys' charges: shown, never billed. */
  test!: StatementAmountDto;
}

@ApiSchema({ name: 'StatementProjectLine' })
export class StatementProjectLineDto extends StatementAmountDto {
  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  environment!: KeyEnvironment;
}

@ApiSchema({ name: 'StatementKeyLine' })
export class StatementKeyLineDto extends StatementAmountDto {
  @ApiProperty({ format: 'uuid' })
  key_id!: string;

  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  environment!: KeyEnvironment;
}

@ApiSchema({ name: 'StatementOperationLine' })
export class StatementOperationLineDto extends StatementAmountDto {
  operation!: string;

  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  environment!: KeyEnvironment;
}

@ApiSchema({ name: 'StatementActor' })
export class StatementActorDto {
  /** user, operator, system or api_key. */
  @ApiProperty({ enum: ['user', 'operator', 'system', 'api_key'] })
  type!: 'user' | 'operator' | 'system' | 'api_key';

  /** The user's or key's id, or the operator's name. */
  id!: string;
}

export const ADJUSTMENT_KINDS = ['late_charge', 'correction'] as const;
export type AdjustmentKind = (typeof ADJUSTMENT_KINDS)[number];

/**
 * What changes a closed month's figures, booked in the month open when it happened: a charge appended after its own
 * month closed (late_charge), or an operator's correction (correction).
 */
@ApiSchema({ name: 'StatementAdjustment' })
export class StatementAdjustmentDto {
  @ApiProperty({ enum: ADJUSTMENT_KINDS })
  kind!: AdjustmentKind;

  /** The charge id (late charge) or the adjustment id (correction). */
  reference!: string;

  /** The closed month it corrects, YYYY-MM. */
  corrects_month!: string;

  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  environment!: KeyEnvironment;

  /** Credits, negative for a credit note. */
  credits!: number;

  reason!: string;

  actor!: StatementActorDto;

  /** When it was recorded (ISO 8601, UTC). */
  occurred_at!: string;
}

@ApiSchema({ name: 'StatementPosition' })
export class StatementPositionDto {
  /** The event store's commit position (a decimal integer). */
  commit!: string;

  /** The event store's prepare position (a decimal integer). */
  prepare!: string;
}

@ApiSchema({ name: 'StatementAdjustmentsTotal' })
export class StatementAdjustmentsTotalDto {
  live!: number;
  test!: number;
}

/**
 * A closed month's statement, as issued (the StatementIssued event's data): its figures as of covers_position (every
 * event up to it, none after), so that `ledger verify` recomputes it from the events. It never changes.
 */
@ApiSchema({ name: 'StatementFigures' })
export class StatementDataDto {
  @ApiProperty({ format: 'uuid' })
  org_id!: string;

  /** The month, YYYY-MM (UTC). */
  month!: string;

  /** The last event of the store the statement covers. */
  covers_position!: StatementPositionDto | null;

  /** The month's own charges per environment. */
  totals!: StatementTotalsDto;

  @ApiProperty({ type: [StatementProjectLineDto] })
  by_project!: StatementProjectLineDto[];

  @ApiProperty({ type: [StatementKeyLineDto] })
  by_key!: StatementKeyLineDto[];

  @ApiProperty({ type: [StatementOperationLineDto] })
  by_operation!: StatementOperationLineDto[];

  /** Late charges and corrections booked in this month, in the store's order. */
  @ApiProperty({ type: [StatementAdjustmentDto] })
  adjustments!: StatementAdjustmentDto[];

  /** The adjustments' credits per environment. */
  adjustments_total!: StatementAdjustmentsTotalDto;

  /** What the month bills: live charges plus live adjustments. */
  billable_credits!: number;

  /** Credits drawn from credit grants (0 until grants exist). */
  grant_credits_used!: number;

  /** Credits past the allowance and grants, billed as overage (0 until overage exists). */
  overage_credits!: number;

  /** The overage price per credit (null until overage exists). */
  overage_price_per_credit!: number | null;

  /** overage_credits × overage_price_per_credit (null until overage exists). */
  overage_amount!: number | null;
}

@ApiSchema({ name: 'Statement' })
export class StatementDto extends StatementDataDto {
  /** When the month was closed (ISO 8601, UTC). */
  issued_at!: string;
}

@ApiSchema({ name: 'StatementList' })
export class StatementListDto {
  /** The organization's statements, newest month first. */
  @ApiProperty({ type: [StatementDto] })
  statements!: StatementDto[];
}
