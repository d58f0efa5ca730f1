-- event_store_insert was planned afresh on every call (plan_cache_mode = force_custom_plan, migration 005), so that a
-- plan cached while `events` was small could not keep a sequential scan for `event_id = ANY (p_ids)`. Planning its
-- statements cost as much as running them: 150 µs of execution per one-event append with it, 75 µs without
-- (pg_stat_statements, 1,000s of appends to a 200,000-event table). Its plans are cached again; sequential scans are
-- off inside it instead, so every plan it caches reads the indexes, whatever the size of the tables when it was made
-- (PGlite never analyzes on its own, so a plan made on an empty table would otherwise stay).
ALTER FUNCTION event_store_insert(text, text, bigint, uuid[], text[], jsonb, jsonb) RESET plan_cache_mode;
ALTER FUNCTION event_store_insert(text, text, bigint, uuid[], text[], jsonb, jsonb) SET enable_seqscan = off;
