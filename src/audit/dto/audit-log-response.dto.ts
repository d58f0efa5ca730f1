import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { AUDITED_ACTIONS, AUDIT_TARGET_KINDS } from '../audited-events.js';

@ApiSchema({ name: 'AuditActor' })
export class AuditActorDto {
  /** A signed-in user, the server's operator (CLI or dashboard), the service itself, or an API key. */
  @ApiProperty({ enum: ['user', 'operator', 'system', 'api_key'] })
  type!: string;

  /** The user's id, the operator's name or address, what the service did it for (`demo-seed`), the key's id. */
  id!: string;

  /** A user's e-mail address; null for other actors. */
  email!: string | null;
}

@ApiSchema({ name: 'AuditTarget' })
export class AuditTargetDto {
  @ApiProperty({ enum: AUDIT_TARGET_KINDS })
  kind!: string;

  /** The organization's, member's (user), project's or key's id. */
  id!: string;

  /** Its name after the action (a member's address); null when it has none. */
  name!: string | null;
}

/** One control-plane action: who, what, to which thing, when. */
@ApiSchema({ name: 'AuditEntry' })
export class AuditEntryDto {
  /** When it was done (UTC). */
  @ApiProperty({ format: 'date-time' })
  occurred_at!: string;

  actor!: AuditActorDto;

  /** The event's type. */
  @ApiProperty({ enum: AUDITED_ACTIONS })
  action!: string;

  target!: AuditTargetDto;

  /** What was done, in a line: "Revoked the key “CI” (sk_live_Ab3dE9…)". */
  summary!: string;

  /** The event's data (never a secret: a key's hash is left out). */
  @ApiProperty({ type: 'object', additionalProperties: true })
  details!: Record<string, unknown>;
}

@ApiSchema({ name: 'AuditLogPage' })
export class AuditLogPageDto {
  /** Newest first. */
  entries!: AuditEntryDto[];

  /** Pass as cursor for the next page; null on the last page. */
  next_cursor!: string | null;
}
