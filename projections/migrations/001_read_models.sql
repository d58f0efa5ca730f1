-- Read models, built only from events by the projectors in projections/read-models/.
-- Every column is derived from event data or event metadata (never now()), so a rebuild reproduces them exactly.
CREATE TABLE projection_checkpoints (
  name text PRIMARY KEY,
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  user_id uuid PRIMARY KEY,
  email text NOT NULL UNIQUE,
  registered_at timestamptz NOT NULL
);

CREATE TABLE organizations (
  org_id uuid PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL,
  monthly_credit_allowance bigint NOT NULL,
  rate_limit_live integer NOT NULL,
  rate_limit_test integer NOT NULL,
  created_by uuid,
  created_at timestamptz NOT NULL,
  plan_changed_at timestamptz NOT NULL
);

CREATE TABLE org_members (
  org_id uuid NOT NULL,
  user_id uuid NOT NULL,
  email text NOT NULL,
  role text NOT NULL,
  added_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX org_members_user_idx ON org_members (user_id);

CREATE TABLE projects (
  project_id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX projects_org_idx ON projects (org_id);

CREATE TABLE api_keys (
  key_id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  project_id uuid NOT NULL,
  name text NOT NULL,
  environment text NOT NULL,
  prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  depth_limit text,
  status text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_org_idx ON api_keys (org_id, created_at);

CREATE TABLE monthly_totals (
  org_id uuid NOT NULL,
  month text NOT NULL,
  environment text NOT NULL,
  credits numeric(20, 4) NOT NULL,
  requests bigint NOT NULL,
  PRIMARY KEY (org_id, month, environment)
);

CREATE TABLE usage_daily (
  org_id uuid NOT NULL,
  day date NOT NULL,
  month text NOT NULL,
  project_id uuid NOT NULL,
  key_id uuid NOT NULL,
  operation text NOT NULL,
  environment text NOT NULL,
  credits numeric(20, 4) NOT NULL,
  requests bigint NOT NULL,
  PRIMARY KEY (org_id, day, project_id, key_id, operation, environment)
);
CREATE INDEX usage_daily_month_idx ON usage_daily (org_id, month);
