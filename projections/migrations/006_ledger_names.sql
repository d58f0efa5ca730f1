-- Names as charged: each ledger entry keeps the key and project names that were current at its charge's position in
-- the event store, so that a rename does not rewrite past entries (the current names are read beside them).
-- ledger_names holds the names the ledger_entries projector has seen so far (KeyCreated, KeyRenamed, ProjectCreated,
-- ProjectRenamed); the projector reads it when it inserts a charge, and owns it, so a rebuild reproduces both tables.
CREATE TABLE ledger_names (
  kind text NOT NULL CHECK (kind IN ('key', 'project')),
  id uuid NOT NULL,
  name text NOT NULL,
  PRIMARY KEY (kind, id)
);
ALTER TABLE ledger_entries ADD COLUMN key_name text, ADD COLUMN project_name text;

-- Entries projected before this migration: the names current at the read models' checkpoint go into ledger_names
-- (what the projector would hold there), and each entry gets the names as at its charge, read from the events when
-- the PostgreSQL event store is in this schema. With EventStoreDB they get today's names; `projections rebuild`
-- gives them the names as charged.
INSERT INTO ledger_names (kind, id, name) SELECT 'key', key_id, name FROM api_keys;
INSERT INTO ledger_names (kind, id, name) SELECT 'project', project_id, name FROM projects;
DO $$
BEGIN
  IF to_regclass('events') IS NOT NULL THEN
    IF EXISTS (SELECT 1 FROM events) THEN
      CREATE TEMPORARY TABLE name_changes ON COMMIT DROP AS
        SELECT CASE WHEN event_type LIKE 'Key%' THEN 'key' ELSE 'project' END AS kind,
          (CASE WHEN event_type LIKE 'Key%' THEN data->>'key_id' ELSE data->>'project_id' END)::uuid AS id,
          transaction_id AS c, global_position AS p, data->>'name' AS name
        FROM events WHERE event_type IN ('KeyCreated', 'KeyRenamed', 'ProjectCreated', 'ProjectRenamed');
      CREATE INDEX ON name_changes (kind, id, c, p);
      UPDATE ledger_entries l SET
        key_name = (SELECT n.name FROM name_changes n
          WHERE n.kind = 'key' AND n.id = l.key_id AND (n.c, n.p) < (l.commit_position, l.prepare_position)
          ORDER BY n.c DESC, n.p DESC LIMIT 1),
        project_name = (SELECT n.name FROM name_changes n
          WHERE n.kind = 'project' AND n.id = l.project_id AND (n.c, n.p) < (l.commit_position, l.prepare_position)
          ORDER BY n.c DESC, n.p DESC LIMIT 1);
      RETURN;
    END IF;
  END IF;
  UPDATE ledger_entries l SET key_name = n.name FROM ledger_names n WHERE n.kind = 'key' AND n.id = l.key_id;
  UPDATE ledger_entries l SET project_name = n.name FROM ledger_names n
    WHERE n.kind = 'project' AND n.id = l.project_id;
END $$;
