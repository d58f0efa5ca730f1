import { Transform } from 'class-transformer';
import { IsString, Length } from 'class-validator';
import { ApiSchema } from '@nestjs/swagger';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

@ApiSchema({ name: 'CreateProject' })
export class CreateProjectDto {
  /** Name of the project. */
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  name!: string;
}

@ApiSchema({ name: 'RenameProject' })
export class RenameProjectDto {
  /** The new name (validated as at creation). */
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  name!: string;
}
