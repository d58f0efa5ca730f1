-- The PostgreSQL event store: append-only events with a per-stream revision, a unique event id and a global
-- position. A position is (transaction_id, global_position): readers only see events of transactions older than
-- the oldest one still running, so an event can never commit "behind" a reader's checkpoint.
CREATE TABLE event_streams (
  stream_id text PRIMARY KEY,
  revision bigint NOT NULL
);

CREATE TABLE events (
  global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_id bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
  stream_id text NOT NULL,
  stream_revision bigint NOT NULL,
  event_id uuid NOT NULL UNIQUE,
  event_type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (stream_id, stream_revision)
);

CREATE INDEX events_position_idx ON events (transaction_id, global_position);
