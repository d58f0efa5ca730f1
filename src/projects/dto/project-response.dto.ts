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

  /** Credits the project's live keys may spend together per calendar month (UTC); null: no limit of its own. */
  @ApiProperty({ type: 'integer', nullable: true })
  monthly_credit_limit!: number | null;
}

@ApiSchema({ name: 'ProjectList' })
export class ProjectListDto {
  projects!: ProjectDto[];
}
