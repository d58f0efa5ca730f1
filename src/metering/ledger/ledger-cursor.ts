import type { Position } from '../../event-store/event-store.port.js';

const MAX_BIGINT = 2n ** 63n - 1n;
const BASE64URL = /^[A-Za-z0-9_-]{1,80}$/;

/** The opaque `next_cursor` of a ledger page: base64url of the last entry's event position. */
export function encodeCursor(position: Position): string {
  return Buffer.from(`${position.commit}:${position.prepare}`, 'utf8').toString('base64url');
}

/** The position inside a cursor; undefined for anything this service did not hand out. */
export function decodeCursor(cursor: string): Position | undefined {
  if (!BASE64URL.test(cursor)) return undefined;
  const match = /^(\d{1,19}):(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const position = { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
  if (position.commit > MAX_BIGINT || position.prepare > MAX_BIGINT) return undefined;
  // base64url decoding is lenient (trailing bits, padding): only the canonical spelling is a cursor.
  return encodeCursor(position) === cursor ? position : undefined;
}
