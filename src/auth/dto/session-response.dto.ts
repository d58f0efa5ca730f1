import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'SessionUser' })
export class SessionUserDto {
  /** User id. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** E-mail address. */
  email!: string;
}

@ApiSchema({ name: 'Session' })
export class SessionDto {
  /** The session token (sess_…): send it as Authorization: Bearer on control-plane routes. */
  session_token!: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type!: 'Bearer';

  /** When the session ends. */
  @ApiProperty({ format: 'date-time' })
  expires_at!: string;

  user!: SessionUserDto;
}

@ApiSchema({ name: 'CurrentSession' })
export class CurrentSessionDto {
  user!: SessionUserDto;

  /** Whether the user is an operator of this server (OPERATOR_EMAILS): changes any organization's plan. */
  operator!: boolean;
}

@ApiSchema({ name: 'MagicLinkRequested' })
export class MagicLinkRequestedDto {
  /** Always the same text (whether the address can sign in is not revealed). */
  message!: string;
}

/** The dashboard's sign-in: the session itself is in the HttpOnly cookie, never in the body. */
@ApiSchema({ name: 'DashboardSession' })
export class DashboardSessionDto {
  user!: SessionUserDto;

  /** When the session ends. */
  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
}
