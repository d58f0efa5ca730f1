-- The audit log: one row per control-plane event of an organization (who did what to which thing, and when), in the
-- event store's order, for GET /orgs/{org_id}/audit-log, its CSV and the dashboard's Audit log. Every column comes
-- from the event (its data, its metadata's actor and time), never from now(), so a rebuild reproduces the table.
-- `details` is the event's data without what must never be shown (a key's hash); `previous_role` is kept there for
-- a member added again with another role (none when they had been removed).
CREATE TABLE audit_log (
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL,
  org_id uuid NOT NULL,
  occurred_at timestamptz NOT NULL,
  actor_type text NOT NULL,
  actor_id text NOT NULL,
  action text NOT NULL,
  target_kind text NOT NULL,
  target_id text NOT NULL,
  details jsonb NOT NULL,
  PRIMARY KEY (commit_position, prepare_position)
);
CREATE INDEX audit_log_org_idx ON audit_log (org_id, commit_position DESC, prepare_position DESC);
CREATE INDEX audit_log_target_idx ON audit_log (org_id, target_id);

-- Events appended before this migration, read from the PostgreSQL event store when it is in this schema. With
-- EventStoreDB the log starts here; `projections rebuild` fills it from every event.
DO $$
BEGIN
  IF to_regclass('events') IS NOT NULL THEN
    INSERT INTO audit_log (commit_position, prepare_position, org_id, occurred_at, actor_type, actor_id, action,
      target_kind, target_id, details)
    SELECT e.transaction_id, e.global_position, (e.data->>'org_id')::uuid,
      coalesce((e.metadata->>'occurred_at')::timestamptz, e.created_at),
      coalesce(e.metadata->'actor'->>'type', 'system'), coalesce(e.metadata->'actor'->>'id', 'unknown'),
      e.event_type,
      CASE WHEN e.event_type LIKE 'Key%' THEN 'key' WHEN e.event_type LIKE 'Project%' THEN 'project'
        WHEN e.event_type LIKE 'Member%' THEN 'member' WHEN e.event_type LIKE 'Credit%' THEN 'grant'
        WHEN e.event_type = 'AlertThresholdsSet' THEN e.data->>'scope'
        WHEN e.event_type = 'LedgerAdjusted' THEN 'adjustment' WHEN e.event_type = 'StatementIssued' THEN 'statement'
        ELSE 'organization' END,
      coalesce(CASE WHEN e.event_type LIKE 'Key%' THEN e.data->>'key_id'
        WHEN e.event_type LIKE 'Project%' THEN e.data->>'project_id'
        WHEN e.event_type LIKE 'Member%' THEN e.data->>'user_id' WHEN e.event_type LIKE 'Credit%' THEN e.data->>'grant_id'
        WHEN e.event_type = 'AlertThresholdsSet' THEN e.data->>'scope_id'
        WHEN e.event_type = 'LedgerAdjusted' THEN e.data->>'adjustment_id'
        WHEN e.event_type = 'StatementIssued' THEN e.data->>'month'
        ELSE e.data->>'org_id' END, ''),
      CASE WHEN e.event_type = 'MemberAdded' THEN (e.data - 'key_hash') || jsonb_build_object('previous_role',
          CASE WHEN lag(e.event_type) OVER member = 'MemberAdded' THEN lag(e.data->>'role') OVER member END)
        WHEN e.event_type = 'StatementIssued' THEN jsonb_build_object('month', e.data->'month',
          'billable_credits', e.data->'billable_credits')
        ELSE e.data - 'key_hash' END
    FROM events e
    WHERE e.event_type IN ('OrganizationCreated', 'PlanChanged', 'CreditsGranted', 'CreditGrantRevoked', 'MemberAdded',
      'MemberRemoved', 'ProjectCreated', 'ProjectRenamed', 'ProjectBudgetSet', 'KeyCreated', 'KeyRenamed', 'KeyRevoked',
      'KeyBudgetSet', 'AlertThresholdsSet', 'LedgerAdjusted', 'StatementIssued')
      AND e.data->>'org_id' IS NOT NULL
    WINDOW member AS (PARTITION BY e.data->>'org_id', e.data->>'user_id' ORDER BY e.transaction_id, e.global_position);
  END IF;
END $$;
