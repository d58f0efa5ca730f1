import { Transform } from 'class-transformer';
import { IsString, Length } from 'class-validator';
import { ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'CreateProject' })
export class CreateProjectDto {
  /** Name of the project. */
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 100)
  name!: string;
}
