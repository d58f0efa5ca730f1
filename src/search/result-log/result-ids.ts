/**
 * A search result's id: the search's request id and the result's position (1-based, two digits at least), e.g.
 * `3f0c…-04`. The same request always shows the same page at the same position (a replay returns the stored
 * response), so the id is stable, and feedback naming it leads back to the search without any other lookup.
 */
export function resultId(requestId: string, position: number): string {
  return `${requestId}-${String(position).padStart(2, '0')}`;
}

/** The request id and position an id names, or null when it is not a result id. */
export function parseResultId(id: string): { requestId: string; position: number } | null {
  const dash = id.lastIndexOf('-');
  if (dash <= 0) return null;
  const digits = id.slice(dash + 1);
  if (!/^\d{2,3}$/.test(digits)) return null;
  const position = Number(digits);
  return position >= 1 ? { requestId: id.slice(0, dash), position } : null;
}
