/** Calendar days (YYYY-MM-DD, UTC, both inclusive) as the instants they span: `since` inclusive, `until` exclusive. */
export interface DateWindow {
  readonly since: Date | undefined;
  readonly until: Date | undefined;
}

const DAY_MS = 86_400_000;

/**
 * The instants of an inclusive range of UTC days, either end open when not given; null when the end comes before
 * the start. The days are valid calendar dates (the DTOs check them).
 */
export function dateWindow(startDate: string | undefined, endDate: string | undefined): DateWindow | null {
  const since = startDate === undefined ? undefined : new Date(`${startDate}T00:00:00Z`);
  const until = endDate === undefined ? undefined : new Date(Date.parse(`${endDate}T00:00:00Z`) + DAY_MS);
  if (since && until && until.getTime() <= since.getTime()) return null;
  return { since, until };
}

/** A UTC day written YYYY-MM-DD. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
