import { Transform } from 'class-transformer';
import { ArrayUnique, IsArray, IsIn, IsOptional, IsString, IsUUID, Length } from 'class-validator';
import { MonthlyCreditLimit } from '../../common/monthly-credit-limit.js';
import { KEY_ENVIRONMENTS, KEY_SCOPES, type KeyEnvironment, type KeyScope } from '../events/key.events.js';
import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

@ApiSchema({ name: 'CreateApiKey' })
export class CreateKeyDto {
  /** Name of the key. */
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  name!: string;

  /** The key's project. Default: the organization's first project. */
  @IsOptional()
  @IsUUID('all', { message: 'project_id must be a project id (UUID)' })
  project_id?: string;

  /** live (billed against the plan) or test (development and CI). Default live. */
  @ApiPropertyOptional({ enum: KEY_ENVIRONMENTS, default: 'live' })
  @IsOptional()
  @IsIn(KEY_ENVIRONMENTS, { message: `environment must be one of: ${KEY_ENVIRONMENTS.join(', ')}` })
  environment?: KeyEnvironment;

  /** What the key may call. Default: every scope. */
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(KEY_SCOPES, { each: true, message: `scopes must contain only: ${KEY_SCOPES.join(', ')}` })
  scopes?: KeyScope[];

  /** 'basic': the key may not ask for search_depth or extract_depth advanced. Default null. */
  @IsOptional()
  @IsIn(['basic', null], { message: "depth_limit must be 'basic' or null" })
  depth_limit?: 'basic' | null;

  /** The key's own monthly credit limit (the credits of its environment). Default null: none. */
  @MonthlyCreditLimit()
  monthly_credit_limit?: number | null;
}

@ApiSchema({ name: 'RenameApiKey' })
export class RenameKeyDto {
  /** The new name (omitted: unchanged). */
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  name?: string;

  /** The key's own monthly credit limit (the credits of its environment); null removes it. */
  @MonthlyCreditLimit()
  monthly_credit_limit?: number | null;
}
