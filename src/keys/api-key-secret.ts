import { randomBase62, sha256Hex } from '../common/secrets.js';
import type { KeyEnvironment } from './events/key.events.js';

const SECRET_LENGTH = 32; // base62: about 190 bits of randomness
const DISPLAY_CHARS = 6;
const API_KEY = /^([a-z][a-z0-9]{1,11})_(live|test)_([0-9A-Za-z]{32})$/;

export interface GeneratedApiKey {
  readonly plaintext: string;
  /** Shown in listings: the environment prefix and the first characters of the secret. */
  readonly displayPrefix: string;
  readonly hash: string;
}

export function generateApiKey(prefix: string, environment: KeyEnvironment): GeneratedApiKey {
  const secret = randomBase62(SECRET_LENGTH);
  const plaintext = `${prefix}_${environment}_${secret}`;
  return {
    plaintext,
    displayPrefix: `${prefix}_${environment}_${secret.slice(0, DISPLAY_CHARS)}`,
    hash: hashApiKey(plaintext),
  };
}

export function hashApiKey(plaintext: string): string {
  return sha256Hex(plaintext);
}

/** The environment of a well-formed key, or null for anything malformed (refused without a database lookup). */
export function parseApiKey(plaintext: string): { environment: KeyEnvironment } | null {
  const match = API_KEY.exec(plaintext);
  return match ? { environment: match[2] as KeyEnvironment } : null;
}
