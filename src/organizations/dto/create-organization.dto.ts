import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { PLAN_NAMES, type PlanName } from '../plans.js';
import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsEmailAddress } from '../../users/dto/email-address.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

@ApiSchema({ name: 'CreateOrganization' })
export class CreateOrganizationDto {
  /** Name of the organization. */
  @Transform(trim)
  @IsString()
  @Length(1, 100)
  name!: string;

  /** Self-service organizations start on the free plan; the operator CLI changes plans. */
  @ApiPropertyOptional({ enum: ['free'] })
  @IsOptional()
  @IsIn(['free'], { message: `plan must be 'free' (other plans: ${PLAN_NAMES.join(', ')}, set by an operator)` })
  plan?: PlanName;
}

@ApiSchema({ name: 'AddMember' })
export class AddMemberDto {
  /** E-mail address of the new member (validated as sign-in does). */
  @IsEmailAddress()
  email!: string;

  /** Role. */
  @IsIn(['admin', 'member'])
  role!: 'admin' | 'member';
}
