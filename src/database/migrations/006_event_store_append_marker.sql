-- Readers of the global order (src/event-store/postgres/read-all.ts) stop before the oldest transaction that may
-- still commit events. Until now that was the oldest transaction running anywhere in the cluster, so one long write
-- elsewhere (an index rebuild, a migration, another application's batch job) held every projection back for as long
-- as it ran. Now a transaction that writes events says so, with two shared advisory locks held until it ends:
--   74013/hashtext(schema), taken before its first write (before it has a transaction id), then
--   74014/<its transaction id's low 32 bits>, taken right after the id is assigned.
-- event_store_horizon(snapshot) reads the locks once and returns the oldest transaction of the snapshot that may still
-- commit events of this schema: one that holds the second lock, or that has ended since the snapshot. A running
-- transaction without it never will, since writers take the first lock before their id exists. While a writer holds
-- the first lock but not yet the second (a moment), the answer is the snapshot's oldest running transaction, as before.
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
  PERFORM pg_advisory_xact_lock_shared(74014, ((pg_current_xact_id()::text::bigint % 4294967296) - 2147483648)::int);
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

-- The readers' horizon for `p_snapshot`, the calling statement's snapshot (pass pg_current_snapshot()): VOLATILE, so
-- that its statements run in order, each seeing the locks and transaction states as of then.
CREATE FUNCTION event_store_horizon(p_snapshot pg_snapshot) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_unresolved boolean;
  v_writers bigint[];
  v_horizon bigint;
BEGIN
  -- One read of the lock table: the writers of this schema, and the transaction id of each (low 32 bits).
  WITH held AS MATERIALIZED (
    SELECT pid, classid, objid, objsubid FROM pg_locks
    WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid IN (74013, 74014)
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  )
  SELECT coalesce(bool_or(x.pid IS NULL), false),
         array_agg((x.objid::text::bigint + 2147483648) % 4294967296) FILTER (WHERE x.pid IS NOT NULL)
    INTO v_unresolved, v_writers
    FROM held m LEFT JOIN held x ON x.pid = m.pid AND x.classid = 74014
   WHERE m.classid = 74013 AND m.objid = hashtext(current_schema())::oid;

  SELECT min(r.xid) INTO v_horizon
    FROM (SELECT x::text::bigint AS xid FROM pg_snapshot_xip(p_snapshot) AS x) r
   WHERE v_unresolved
      OR r.xid % 4294967296 = ANY (coalesce(v_writers, '{}'))
      OR pg_xact_status(r.xid::text::xid8) IS DISTINCT FROM 'in progress';
  RETURN coalesce(v_horizon, pg_snapshot_xmax(p_snapshot)::text::bigint);
END;
$$;
