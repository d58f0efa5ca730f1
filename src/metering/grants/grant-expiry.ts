const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * A grant's expiry as an operator writes it: an ISO 8601 date-time, or a date, which means the end of that day (UTC):
 * `2026-12-31` lasts through December 31. Null when it is not a valid date.
 */
export function parseGrantExpiry(text: string): Date | null {
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) return null;
  return DATE_ONLY.test(text) ? new Date(at.getTime() + DAY_MS) : at;
}
