import { secretsEqual, sha256Hex } from '../common/secrets.js';

export const METRICS_UNAUTHORIZED = 'Unauthorized: /metrics requires the METRICS_TOKEN bearer token.';

/**
 * Whether a scrape may read the metrics: always without METRICS_TOKEN, else only with `Authorization: Bearer
 * <token>`. Both sides are hashed first, so the comparison takes the same time whatever the length of the guess.
 */
export function metricsAccessAllowed(token: string | null, authorization: string | undefined): boolean {
  if (token === null) return true;
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return secretsEqual(sha256Hex(match?.[1] ?? ''), sha256Hex(token));
}
