-- The request log: one row per data-plane call of an organization's keys, refused ones included (status, operation,
-- key, a summary of the query or URLs, latency, credits), for the dashboard and GET /orgs/{org_id}/requests.
-- Operational, not billing: kept outside the ledger, written in batches after the responses, and deleted after
-- REQUEST_LOG_RETENTION_DAYS. It never holds a secret: the key's id only (its name and prefix are read from api_keys), URLs without query or userinfo.
CREATE TABLE request_log (
  id bigserial NOT NULL,
  org_id uuid NOT NULL,
  occurred_at timestamptz NOT NULL,
  request_id text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  operation text NOT NULL,
  status smallint NOT NULL,
  key_id uuid NOT NULL,
  key_environment text NOT NULL,
  project_id uuid NOT NULL,
  summary text,
  latency_ms numeric(12, 3) NOT NULL,
  credits numeric(20, 4)
);
-- Written far more often than read: one b-tree for the reads (an organization's rows, newest first, by id), and a
-- BRIN index for the hourly pruning by age (rows arrive in time order; BRIN costs next to nothing to maintain).
CREATE INDEX request_log_org_idx ON request_log (org_id, id DESC);
CREATE INDEX request_log_age_idx ON request_log USING brin (occurred_at);
