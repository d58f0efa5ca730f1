import { ApiProperty, ApiSchema } from '@nestjs/swagger';

const CHECK = { enum: ['ok', 'not_configured', 'timeout', 'failed', 'replaying', 'behind'] };

@ApiSchema({ name: 'ReadinessChecks' })
export class ReadinessChecksDto {
  @ApiProperty(CHECK)
  database!: string;

  @ApiProperty(CHECK)
  redis!: string;

  @ApiProperty(CHECK)
  event_store!: string;

  @ApiProperty(CHECK)
  projections!: string;
}

@ApiSchema({ name: 'Ready' })
export class ReadinessDto {
  /** Readiness. */
  @ApiProperty({ enum: ['ready', 'not_ready'] })
  status!: 'ready' | 'not_ready';

  /** The failing checks (when not ready). */
  failing?: string[];

  checks!: ReadinessChecksDto;
}

@ApiSchema({ name: 'Alive' })
export class AliveDto {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';
}
