import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, MaxLength } from 'class-validator';
import { EMAIL_MAX_LENGTH } from '../../common/email-address.js';

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
