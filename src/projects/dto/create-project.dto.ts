import { Transform } from 'class-transformer';
import { IsOptional, IsString, Length } from 'class-validator';
import { MonthlyCreditLimit } from '../../common/monthly-credit-limit.js';
import { ApiSchema } from '@nestjs/swagger';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

@ApiSchema({ name: 'CreateProject' })
export class CreateProjectDto {
  /** Name of the project. */
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  name!: string;

  /** The project's monthly credit limit (its live keys' credits together). Default null: none. */
  @MonthlyCreditLimit()
  monthly_credit_limit?: number | null;
}

@ApiSchema({ name: 'RenameProject' })
export class RenameProjectDto {
  /** The new name (validated as at creation; omitted: unchanged). */
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  name?: string;

  /** The project's monthly credit limit (its live keys' credits together); null removes it. */
  @MonthlyCreditLimit()
  monthly_credit_limit?: number | null;
}
