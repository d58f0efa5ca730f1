import { createHash } from 'node:crypto';
import { normalizeEmail } from '../../common/email-address.js';
import type { DomainEvent } from '../../event-store/domain-event.js';

/** One stream per e-mail address makes registration unique: the first append expects no stream. */
export const userEmailStream = (email: string) =>
  `user_email-${createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 40)}`;

export type UserRegistered = DomainEvent<'UserRegistered', { user_id: string; email: string }>;
