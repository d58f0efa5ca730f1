import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';

const toBoolean = ({ value }: { value: unknown }) =>
  value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;

/** GET /research/{request_id}'s query. */
export class ResearchQueryDto {
  /** Adds `usage` (the credits the task was billed) to the response. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'include_usage must be true or false' })
  include_usage?: boolean;
}
