-- Sign-in state. Not ledger facts, so kept as plain rows: tokens are stored as SHA-256 hashes only.
CREATE TABLE auth_magic_links (
  token_hash text PRIMARY KEY,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX auth_magic_links_expiry_idx ON auth_magic_links (expires_at);

CREATE TABLE auth_sessions (
  token_hash text PRIMARY KEY,
  session_id uuid NOT NULL UNIQUE,
  user_id uuid NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX auth_sessions_user_idx ON auth_sessions (user_id);
