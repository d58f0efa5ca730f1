import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS, KEY_SCOPES } from '../events/key.events.js';

/** A key as listings show it: never the plaintext, never the hash. */
@ApiSchema({ name: 'ApiKey' })
export class ApiKeyDto {
  /** Key id. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** Name. */
  name!: string;

  /** The start of the key (sk_live_Ab3dE9), for recognizing it. */
  prefix!: string;

  /** Environment. */
  @ApiProperty({ enum: KEY_ENVIRONMENTS })
  environment!: string;

  /** Project. */
  @ApiProperty({ format: 'uuid' })
  project_id!: string;

  /** Scopes. */
  @ApiProperty({ enum: KEY_SCOPES, isArray: true })
  scopes!: string[];

  /** 'basic': the key may not ask for search_depth or extract_depth advanced. */
  @ApiProperty({ enum: ['basic'], nullable: true })
  depth_limit!: string | null;

  /** Status. */
  @ApiProperty({ enum: ['active', 'revoked'] })
  status!: string;

  /** Created. */
  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /** Last used. */
  @ApiProperty({ format: 'date-time', nullable: true })
  last_used_at!: string | null;

  /** Revoked. */
  @ApiProperty({ format: 'date-time', nullable: true })
  revoked_at!: string | null;

  /** Credits the key may spend per calendar month (UTC, its environment's credits); null: no limit of its own. */
  @ApiProperty({ type: 'integer', nullable: true })
  monthly_credit_limit!: number | null;
}

@ApiSchema({ name: 'CreatedApiKey' })
export class CreatedApiKeyDto extends ApiKeyDto {
  /** The plaintext key: shown in this response only. */
  key!: string;
}

@ApiSchema({ name: 'ApiKeyList' })
export class ApiKeyListDto {
  keys!: ApiKeyDto[];
}
