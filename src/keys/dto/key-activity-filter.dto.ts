import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { KEY_ENVIRONMENTS, type KeyEnvironment } from '../events/key.events.js';

/** Query strings are strings: a plain decimal becomes a number, anything else stays as it is (and fails IsInt). */
export const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;

/** What an organization's keys did, narrowed to a project, a key or an environment (the ledger, the request log). */
export class KeyActivityFilterDto {
  @IsOptional()
  @IsUUID('all', { message: 'project_id must be a project id (UUID)' })
  project_id?: string;

  @IsOptional()
  @IsUUID('all', { message: 'key_id must be an API key id (UUID)' })
  key_id?: string;

  @IsOptional()
  @IsIn(KEY_ENVIRONMENTS, { message: `environment must be one of: ${KEY_ENVIRONMENTS.join(', ')}` })
  environment?: KeyEnvironment;
}
