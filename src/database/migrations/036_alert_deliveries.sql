-- Webhook endpoints that owners register (the secret signs each delivery, so it is kept as it was shown, once), and
-- the outbox of alert deliveries: one row per alert event and target (an endpoint, or an owner's e-mail address),
-- claimed by one node at a time under a lease; every attempt is kept for the delivery log.
CREATE TABLE webhook_endpoints (
  endpoint_id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  url text NOT NULL,
  description text,
  secret text NOT NULL,
  created_by uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (org_id, created_at);

CREATE TABLE alert_deliveries (
  delivery_id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  event_id uuid NOT NULL,
  channel text NOT NULL CHECK (channel IN ('webhook', 'email')),
  endpoint_id uuid REFERENCES webhook_endpoints (endpoint_id),
  email text,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- The attempts made before the last replay: the retry schedule starts again after a replay.
  attempts_before_replay integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((channel = 'webhook') = (endpoint_id IS NOT NULL) AND (channel = 'email') = (email IS NOT NULL))
);
CREATE UNIQUE INDEX alert_deliveries_webhook_once ON alert_deliveries (event_id, endpoint_id) WHERE channel = 'webhook';
CREATE UNIQUE INDEX alert_deliveries_email_once ON alert_deliveries (event_id, email) WHERE channel = 'email';
CREATE INDEX alert_deliveries_due_idx ON alert_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_deliveries_endpoint_idx ON alert_deliveries (endpoint_id, created_at);

CREATE TABLE alert_delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES alert_deliveries (delivery_id),
  attempt integer NOT NULL,
  node text NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);
