import { IsString, Length } from 'class-validator';
import { ApiSchema } from '@nestjs/swagger';
import { IsEmailAddress } from '../../users/dto/email-address.js';

@ApiSchema({ name: 'RequestMagicLink' })
export class RequestMagicLinkDto {
  /** The e-mail address to sign in with. */
  @IsEmailAddress()
  email!: string;
}

@ApiSchema({ name: 'VerifyMagicLink' })
export class VerifyMagicLinkDto {
  /** The token of the sign-in link. */
  @IsString()
  @Length(1, 200)
  token!: string;
}
