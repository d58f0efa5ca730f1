import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, IsUrl, Length } from 'class-validator';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

@ApiSchema({ name: 'CreateWebhook' })
export class CreateWebhookDto {
  /** Where alerts are POSTed: an http(s) URL on a public address. */
  @ApiProperty({ format: 'uri', example: 'https://example.com/hooks/search-ledger' })
  @IsString()
  @Length(1, 2000)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  url!: string;

  /** A note for the dashboard. */
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(0, 200)
  description?: string;
}

@ApiSchema({ name: 'Webhook' })
export class WebhookDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uri' })
  url!: string;

  @ApiProperty({ nullable: true, type: 'string' })
  description!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

@ApiSchema({ name: 'CreatedWebhook' })
export class CreatedWebhookDto extends WebhookDto {
  /** The signing secret, shown only in this answer: verify `Search-Ledger-Signature` with it. */
  secret!: string;
}

@ApiSchema({ name: 'WebhookList' })
export class WebhookListDto {
  webhooks!: WebhookDto[];
}

@ApiSchema({ name: 'WebhookAttempt' })
export class WebhookAttemptDto {
  attempt!: number;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  duration_ms!: number;

  /** The receiver's HTTP status; null when no answer came (refused, timed out). */
  @ApiProperty({ type: 'integer', nullable: true })
  status_code!: number | null;

  @ApiProperty({ type: 'string', nullable: true })
  error!: string | null;
}

@ApiSchema({ name: 'WebhookDelivery' })
export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The alert event's id (the `Search-Ledger-Event-Id` header). */
  @ApiProperty({ format: 'uuid' })
  event_id!: string;

  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'] })
  status!: 'pending' | 'succeeded' | 'failed';

  /** When the next attempt is due (pending only). */
  @ApiProperty({ format: 'date-time', nullable: true, type: 'string' })
  next_attempt_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /** The alert as delivered. */
  @ApiProperty({ type: 'object', additionalProperties: true })
  payload!: Record<string, unknown>;

  attempts!: WebhookAttemptDto[];
}

@ApiSchema({ name: 'WebhookDeliveryList' })
export class WebhookDeliveryListDto {
  /** Newest first. */
  deliveries!: WebhookDeliveryDto[];
}
