import { Transform } from 'class-transformer';
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';
import { ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'RequestMagicLink' })
export class RequestMagicLinkDto {
  /** The e-mail address to sign in with. */
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  email!: string;
}

@ApiSchema({ name: 'VerifyMagicLink' })
export class VerifyMagicLinkDto {
  /** The token of the sign-in link. */
  @IsString()
  @Length(1, 200)
  token!: string;
}
