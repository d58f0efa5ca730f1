import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'Project' })
export class ProjectDto {
  /** Project id. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** Organization id. */
  @ApiProperty({ format: 'uuid' })
  org_id!: string;

  /** Name. */
  name!: string;

  /** Created. */
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

@ApiSchema({ name: 'ProjectList' })
export class ProjectListDto {
  projects!: ProjectDto[];
}
