import type { TimeRange } from '../search/upstream/upstream-text.js';
import type { VerticalName } from './verticals.js';

/** A vertical search as the providers receive it: validated, defaults applied. */
export interface VerticalRequest {
  readonly vertical: VerticalName;
  readonly query: string;
  readonly maxResults: number;
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string | null;
  readonly language: string | null;
  readonly location: string | null;
  readonly timeRange: TimeRange | null;
  /** The start of `timeRange`, back from now. */
  readonly from: Date | null;
  readonly listingType: 'sale' | 'rent' | null;
  readonly now: Date;
}
