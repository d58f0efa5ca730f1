-- Research tasks (POST /research): each one a job that any node may run. A node claims a job (FOR UPDATE SKIP
-- LOCKED) and holds it by a lease it renews; a job whose lease lapsed is claimed again, up to max attempts, then
-- failed. `reserved_credits` were reserved at submission (live keys) under `charge_id`, the id its one
-- CreditsCharged carries, so that a second run of the same job can never bill it twice.
CREATE TABLE research_jobs (
  request_id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  project_id uuid NOT NULL,
  key_id uuid NOT NULL,
  key_environment text NOT NULL,
  idempotency_key text,
  input text NOT NULL,
  model text NOT NULL,
  plan_model text NOT NULL CHECK (plan_model IN ('mini', 'pro')),
  citation_format text NOT NULL,
  output_schema jsonb,
  status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_expires_at timestamptz,
  charge_id uuid NOT NULL UNIQUE,
  billing_month text NOT NULL,
  reserved_credits integer NOT NULL,
  credits integer,
  -- Set once its CreditsCharged is durable (before the counters are settled), so that a later run knows.
  charged_at timestamptz,
  counts jsonb,
  pricing jsonb,
  content jsonb,
  sources jsonb,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  expires_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX research_jobs_idempotency_idx ON research_jobs (org_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX research_jobs_runnable_idx ON research_jobs (created_at) WHERE status IN ('pending', 'in_progress');
CREATE INDEX research_jobs_expiry_idx ON research_jobs (expires_at);
