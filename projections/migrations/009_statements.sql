-- Closed months. A charge appended after its month closed is booked in the open month as an adjustment:
-- billing_month is then that open month and corrects_month the closed one (NULL for every other charge).
ALTER TABLE ledger_entries ADD COLUMN corrects_month text;

-- One row per StatementIssued event: the statement exactly as issued, and the position of the store it covers.
CREATE TABLE statements (
  org_id uuid NOT NULL,
  month text NOT NULL,
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL,
  covers_commit bigint,
  covers_prepare bigint,
  issued_at timestamptz NOT NULL,
  statement jsonb NOT NULL,
  PRIMARY KEY (org_id, month)
);

-- Operators' corrections (LedgerAdjusted), booked in the month open when they were made.
CREATE TABLE ledger_adjustments (
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL,
  adjustment_id text NOT NULL UNIQUE,
  org_id uuid NOT NULL,
  month text NOT NULL,
  corrects_month text NOT NULL,
  credits numeric(20, 4) NOT NULL,
  reason text NOT NULL,
  actor jsonb NOT NULL,
  occurred_at timestamptz NOT NULL,
  PRIMARY KEY (commit_position, prepare_position)
);
CREATE INDEX ledger_adjustments_org_month_idx ON ledger_adjustments (org_id, month);
