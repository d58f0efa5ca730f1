import { randomBase62, sha256Hex } from '../common/secrets.js';

/** Session tokens have their own prefix, so an API key is never mistaken for one (and vice versa). */
export const SESSION_TOKEN_PREFIX = 'sess_';
const SESSION_TOKEN = /^sess_[0-9A-Za-z]{43}$/;

export function newSessionToken(): { token: string; hash: string } {
  const token = SESSION_TOKEN_PREFIX + randomBase62(43);
  return { token, hash: sha256Hex(token) };
}

export function isSessionTokenFormat(token: string): boolean {
  return SESSION_TOKEN.test(token);
}
