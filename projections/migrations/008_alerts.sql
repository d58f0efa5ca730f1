-- Alert thresholds per budget and per allowance (AlertThresholdsSet; no row: the default 50, 80 and 100 %), and the
-- thresholds crossed (AlertThresholdCrossed, one per organization, scope, month and threshold).
CREATE TABLE alert_thresholds (
  org_id uuid NOT NULL,
  scope text NOT NULL,
  scope_id uuid NOT NULL,
  thresholds integer[] NOT NULL,
  PRIMARY KEY (org_id, scope, scope_id)
);

CREATE TABLE alerts_crossed (
  event_id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  scope text NOT NULL,
  scope_id uuid NOT NULL,
  billing_month text NOT NULL,
  threshold integer NOT NULL,
  credits_used bigint NOT NULL,
  credits_limit bigint NOT NULL,
  crossed_at timestamptz NOT NULL
);
CREATE INDEX alerts_crossed_org_idx ON alerts_crossed (org_id, crossed_at);
