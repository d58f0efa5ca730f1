-- Readers of the global order (src/event-store/postgres/read-all.ts) stop before the oldest transaction that may
-- still commit events. Until now that was the oldest transaction running anywhere in the cluster, so one long write
-- elsewhere (an index rebuild, a migration, another application's batch job) held every projection back for as long
-- as it ran. Now a transaction that writes events says so: it takes a shared advisory lock of this schema (class
-- 74013, key hashtext(schema)) before its first write and keeps it until it ends, so a reader can tell the running
-- transactions that may still commit events (they hold the lock) from those that never will.
--
-- The rule, enforced here: events are written only by event_store_append, as the first write of its transaction (it
-- refuses a transaction that already has an id, i.e. has written before); a direct INSERT into events is refused.

ALTER FUNCTION event_store_append(text, text, bigint, uuid[], text[], jsonb, jsonb) RENAME TO event_store_insert;

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
AS $$
BEGIN
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'event_store_append must be the first write of its transaction';
  END IF;
  PERFORM pg_advisory_xact_lock_shared(74013, hashtext(current_schema()));
  PERFORM set_config('event_store.appending', current_schema(), true);
  SELECT i.next_expected_revision, i.commit_position, i.prepare_position
    INTO next_expected_revision, commit_position, prepare_position
    FROM event_store_insert(p_stream, p_expected, p_expected_revision, p_ids, p_types, p_data, p_metadata) i;
END;
$$;

CREATE FUNCTION event_store_refuse_unmarked_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('event_store.appending', true) IS DISTINCT FROM current_schema() THEN
    RAISE EXCEPTION 'events are written by event_store_append only';
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_written_by_append_only
  BEFORE INSERT ON events
  FOR EACH STATEMENT EXECUTE FUNCTION event_store_refuse_unmarked_insert();
