import type { Queryable } from '../src/database/database.js';
import type { RecordedEvent } from '../src/event-store/event-store.port.js';

/**
 * Turns events into rows of its read-model tables. `apply` runs inside the batch transaction that also saves the
 * checkpoint, with the search path set to the target schema (live or a rebuild's scratch schema).
 */
export interface Projector {
  readonly name: string;
  /** Tables this projector owns, compared by projections:verify. */
  readonly tables: readonly string[];
  readonly eventTypes: readonly string[];
  apply(tx: Queryable, event: RecordedEvent): Promise<void>;
  /**
   * Optional: applies consecutive events of one of its types at once (a few statements for the whole run instead of
   * a few per event), leaving exactly the rows `apply` on each event in order would. Used only when every projector
   * of that event type has it, so such projectors must not read each other's tables.
   */
  applyMany?(tx: Queryable, events: readonly RecordedEvent[]): Promise<void>;
}
