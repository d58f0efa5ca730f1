-- An append in one round trip (src/event-store/postgres/append-to-stream.ts calls it as one statement, its own
-- transaction). Each statement of a VOLATILE plpgsql function takes a fresh snapshot, so the steps behave exactly as
-- the statements of a READ COMMITTED transaction would, one by one:
--   1. create the stream row (revision -1) if missing, and lock it (FOR UPDATE: appends to one stream serialize);
--   2. if any of the event ids is already stored: the same events at the same place of this stream, consistent with
--      the expected revision, return the original result (idempotent re-append); anything else is a conflict;
--   3. check the expected revision: p_expected is 'any', 'no_stream', 'stream_exists' or 'exact' (then
--      p_expected_revision is the stream's last revision the caller expects);
--   4. insert the events with consecutive revisions, and move the stream's revision.
-- No NOTIFY here: a transaction that notifies holds a database-wide lock from its commit until its WAL is flushed, so
-- appends that notify commit one after the other, one WAL flush each (no group commit). The store notifies listeners
-- in a statement of its own once the append has committed (AppendSignal.announce).
-- A conflict raises SQLSTATE 'ES409' with the stream's actual revision ('no_stream' when it has none) as DETAIL;
-- an event id stored in another stream surfaces as the unique violation (23505) of the insert.
-- The events come as arrays in batch order: ids, types, and two JSON arrays, of their data and of their metadata (one
-- JSON text each rather than a jsonb[] of JSON texts, which the client would have to escape element by element).
-- The result: the stream's last revision and the (transaction id, global position) of the last event.
CREATE FUNCTION event_store_append(
  p_stream text,
  p_expected text,
  p_expected_revision bigint,
  p_ids uuid[],
  p_types text[],
  p_data jsonb,
  p_metadata jsonb,
  OUT next_expected_revision bigint,
  OUT commit_position bigint,
  OUT prepare_position bigint
) LANGUAGE plpgsql VOLATILE
-- Planned for the values of each call, as separate statements were: a plan cached for the session could keep, for
-- `event_id = ANY (p_ids)`, the sequential scan that suited the table when it was small.
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
  v_current bigint;
  v_actual text;
  v_count int := cardinality(p_ids);
  v_first bigint;
  v_same_place boolean;
BEGIN
  IF v_count IS NULL OR v_count = 0 THEN
    RAISE EXCEPTION 'event_store_append needs at least one event';
  END IF;
  IF cardinality(p_types) IS DISTINCT FROM v_count OR jsonb_array_length(p_data) <> v_count
    OR jsonb_array_length(p_metadata) <> v_count THEN
    RAISE EXCEPTION 'event_store_append: % ids, % types, % data, % metadata', v_count, cardinality(p_types),
      jsonb_array_length(p_data), jsonb_array_length(p_metadata);
  END IF;
  IF p_expected NOT IN ('any', 'no_stream', 'stream_exists', 'exact')
    OR (p_expected = 'exact') IS DISTINCT FROM (p_expected_revision IS NOT NULL) THEN
    RAISE EXCEPTION 'event_store_append: bad expected revision % %', p_expected, p_expected_revision;
  END IF;

  SELECT s.revision INTO v_current FROM event_streams s WHERE s.stream_id = p_stream FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO event_streams (stream_id, revision) VALUES (p_stream, -1) ON CONFLICT DO NOTHING;
    SELECT s.revision INTO STRICT v_current FROM event_streams s WHERE s.stream_id = p_stream FOR UPDATE;
  END IF;
  v_actual := CASE WHEN v_current >= 0 THEN v_current::text ELSE 'no_stream' END;

  -- 2. Idempotent re-append.
  IF EXISTS (SELECT 1 FROM events e WHERE e.event_id = ANY (p_ids)) THEN
    v_first := coalesce((SELECT e.stream_revision FROM events e WHERE e.event_id = p_ids[1]), -1);
    SELECT bool_and(coalesce(e.stream_id = p_stream AND e.stream_revision = v_first + i.ord - 1, false))
      INTO v_same_place
      FROM unnest(p_ids) WITH ORDINALITY AS i (id, ord)
      LEFT JOIN events e ON e.event_id = i.id;
    IF NOT v_same_place
      OR (p_expected = 'exact' AND p_expected_revision <> v_first - 1)
      OR (p_expected = 'no_stream' AND v_first <> 0) THEN
      RAISE EXCEPTION USING ERRCODE = 'ES409', MESSAGE = 'wrong expected version', DETAIL = v_actual;
    END IF;
    SELECT e.stream_revision, e.transaction_id, e.global_position
      INTO next_expected_revision, commit_position, prepare_position
      FROM events e WHERE e.event_id = p_ids[v_count];
    RETURN;
  END IF;

  -- 3. Expected revision.
  IF NOT (
    p_expected = 'any'
    OR (p_expected = 'no_stream' AND v_current < 0)
    OR (p_expected = 'stream_exists' AND v_current >= 0)
    OR (p_expected = 'exact' AND p_expected_revision = v_current)
  ) THEN
    RAISE EXCEPTION USING ERRCODE = 'ES409', MESSAGE = 'wrong expected version', DETAIL = v_actual;
  END IF;

  -- 4. Insert, in batch order; every row of this transaction has the same transaction_id.
  WITH inserted AS (
    INSERT INTO events (stream_id, stream_revision, event_id, event_type, data, metadata)
    SELECT p_stream, v_current + e.ord, e.id, e.type, p_data -> (e.ord::int - 1), p_metadata -> (e.ord::int - 1)
    FROM unnest(p_ids, p_types) WITH ORDINALITY AS e (id, type, ord)
    ORDER BY e.ord
    RETURNING global_position, transaction_id
  )
  SELECT max(i.global_position), max(i.transaction_id) INTO prepare_position, commit_position FROM inserted i;
  next_expected_revision := v_current + v_count;
  UPDATE event_streams SET revision = next_expected_revision WHERE stream_id = p_stream;
END;
$$;
