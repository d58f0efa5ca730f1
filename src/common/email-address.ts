import { isEmail } from 'class-validator';

/** The longest address SMTP can deliver to (RFC 5321's path limit, less the angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

/**
 * Whether `text` is an e-mail address the service accepts: what sign-in, membership, the operator CLI and
 * OPERATOR_EMAILS check alike. Addresses are then stored normalised (`normalizeEmail`).
 */
export function isEmailAddress(text: string): boolean {
  return text.length <= EMAIL_MAX_LENGTH && isEmail(text);
}

/** An address as it is stored and compared: trimmed, in lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
