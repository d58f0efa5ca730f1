import { inWindow } from '../../search/upstream/upstream-text.js';
import type { VerticalRequest } from '../vertical-request.js';

/** Whether one of the texts names the request's location (any record passes when it names none). */
export function inLocation(request: VerticalRequest, ...texts: (string | null)[]): boolean {
  if (!request.location) return true;
  const wanted = request.location.toLowerCase();
  return texts.some((text) => text?.toLowerCase().includes(wanted));
}

/** Whether a record was published within the request's time range (an undated record passes). */
export const inTime = (request: VerticalRequest) => (item: { published_date: string | null }) =>
  inWindow(item.published_date ? new Date(item.published_date) : null, request.from, null);
