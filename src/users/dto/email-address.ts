import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, MaxLength, isEmail } from 'class-validator';

/** The longest address SMTP can deliver to (RFC 5321's path limit, less the angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

/**
 * Whether `text` is an e-mail address the service accepts: what sign-in, membership and the operator CLI check alike.
 * Addresses are then stored normalised (`normalizeEmail`).
 */
export function isEmailAddress(text: string): boolean {
  return text.length <= EMAIL_MAX_LENGTH && isEmail(text);
}

/**
 * A DTO property holding an e-mail address: trimmed, then validated as `isEmailAddress` does, and documented as
 * `format: email` in the OpenAPI document.
 */
export function IsEmailAddress(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ format: 'email', maxLength: EMAIL_MAX_LENGTH }),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)),
    IsString(),
    MaxLength(EMAIL_MAX_LENGTH),
    IsEmail({}, { message: '$property must be a valid e-mail address' }),
  );
}
