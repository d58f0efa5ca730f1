import type { EventStore, ExpectedRevision, RecordedEvent } from './event-store.port.js';

export interface StreamState<S> {
  readonly state: S;
  /** What an append that depends on this state must expect. */
  readonly expectedRevision: ExpectedRevision;
}

/** Folds a stream into the state a command handler decides on. */
export async function loadStreamState<S>(
  store: EventStore,
  stream: string,
  initial: S,
  evolve: (state: S, event: RecordedEvent) => S,
): Promise<StreamState<S>> {
  const events = await store.readStream(stream);
  const state = events.reduce(evolve, initial);
  const last = events.at(-1);
  return { state, expectedRevision: last ? last.revision : 'no_stream' };
}
