-- The ledger itself: one row per CreditsCharged event, in the event store's order (its position), for finance and
-- audit (GET /orgs/{org_id}/ledger, its CSV export, `ledger verify`). Every column comes from the event's data or
-- metadata (occurred_at), never now(), so a rebuild reproduces the table exactly.
-- channel and pricing are nullable: CreditsCharged events written before they existed do not carry them.
CREATE TABLE ledger_entries (
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL,
  charge_id text NOT NULL UNIQUE,
  org_id uuid NOT NULL,
  project_id uuid NOT NULL,
  key_id uuid NOT NULL,
  key_environment text NOT NULL,
  operation text NOT NULL,
  channel text,
  depth text,
  credits numeric(20, 4) NOT NULL,
  request_id text NOT NULL,
  idempotency_key text,
  billing_month text NOT NULL,
  occurred_at timestamptz NOT NULL,
  counts jsonb NOT NULL,
  pricing jsonb,
  PRIMARY KEY (commit_position, prepare_position)
);
CREATE INDEX ledger_entries_org_month_idx ON ledger_entries (org_id, billing_month, commit_position, prepare_position);
