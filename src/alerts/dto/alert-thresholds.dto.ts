import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsInt, IsUUID, Max, Min, ValidateIf } from 'class-validator';
import { ALERT_SCOPES, type AlertScope } from '../events/alert.events.js';

@ApiSchema({ name: 'SetAlertThresholds' })
export class SetAlertThresholdsDto {
  /** Which limit: the organization's allowance, a project's or a key's monthly limit. */
  @ApiProperty({ enum: ALERT_SCOPES })
  @IsIn(ALERT_SCOPES)
  scope!: AlertScope;

  /** The project's or key's id (not given for the organization). */
  @ApiProperty({ format: 'uuid', required: false })
  @ValidateIf((dto: SetAlertThresholdsDto) => dto.scope !== 'organization' || dto.id !== undefined)
  @IsUUID()
  id?: string;

  /** Percentages of the limit at which an alert fires (1 to 1000, at most 10; empty: no alerts for it). */
  @ApiProperty({ type: 'integer', isArray: true, example: [50, 80, 100] })
  @IsArray()
  @ArrayMaxSize(10)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(1000, { each: true })
  thresholds!: number[];
}

@ApiSchema({ name: 'AlertThresholds' })
export class AlertThresholdsDto {
  @ApiProperty({ enum: ALERT_SCOPES })
  scope!: AlertScope;

  /** The organization's, project's or key's id. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** Percentages of the limit at which an alert fires, ascending. */
  @ApiProperty({ type: 'integer', isArray: true })
  thresholds!: number[];

  /** True when none were set: the default 50, 80 and 100 %. */
  default!: boolean;
}

@ApiSchema({ name: 'AlertThresholdsList' })
export class AlertThresholdsListDto {
  /** The organization's allowance first, then every project and key with thresholds of its own. */
  thresholds!: AlertThresholdsDto[];
}

@ApiSchema({ name: 'AlertCrossed' })
export class AlertCrossedDto {
  /** The AlertThresholdCrossed event's id (the webhook's event id). */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: ALERT_SCOPES })
  scope!: AlertScope;

  @ApiProperty({ format: 'uuid' })
  scope_id!: string;

  /** 'YYYY-MM'. */
  billing_month!: string;

  threshold!: number;

  credits_used!: number;

  credits_limit!: number;

  @ApiProperty({ format: 'date-time' })
  crossed_at!: string;
}

@ApiSchema({ name: 'AlertCrossedList' })
export class AlertCrossedListDto {
  /** Newest first. */
  alerts!: AlertCrossedDto[];
}
