-- Idempotency-Key records where there is no Redis (embedded mode): a retry after a restart replays the answer
-- instead of billing twice. `record` is the JSON text a claim compares when it takes a dead call over.
CREATE TABLE idempotency_records (
  key text PRIMARY KEY,
  record text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX idempotency_records_expiry_idx ON idempotency_records (expires_at);
