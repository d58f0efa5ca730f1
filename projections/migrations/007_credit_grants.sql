-- Credit grants and overage (CreditsGranted, CreditGrantRevoked, PlanChanged's overage). The credit_grants projector
-- owns credit_grants, credit_grant_usage, spend_months and charge_allocations; it splits each live charge, in the
-- store's order, into the part the allowance paid, the parts grants paid and the overage, so a rebuild from the
-- events gives the same split. Every column comes from the events (their data or occurred_at), never now().
ALTER TABLE organizations ADD COLUMN overage_credit_cap bigint, ADD COLUMN overage_price_per_credit text;

CREATE TABLE credit_grants (
  grant_id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  credits bigint NOT NULL,
  recurrence text NOT NULL CHECK (recurrence IN ('once', 'monthly')),
  expires_at timestamptz,
  note text,
  granted_at timestamptz NOT NULL,
  granted_by text NOT NULL,
  revoked_at timestamptz,
  revoked_by text
);
CREATE INDEX credit_grants_org_idx ON credit_grants (org_id, granted_at);

-- Credits spent from each grant per billing month.
CREATE TABLE credit_grant_usage (
  grant_id uuid NOT NULL,
  month text NOT NULL,
  credits numeric(20, 4) NOT NULL,
  PRIMARY KEY (grant_id, month)
);

-- An organization's live credits of a month by what paid them.
CREATE TABLE spend_months (
  org_id uuid NOT NULL,
  month text NOT NULL,
  allowance_credits numeric(20, 4) NOT NULL,
  grant_credits numeric(20, 4) NOT NULL,
  overage_credits numeric(20, 4) NOT NULL,
  PRIMARY KEY (org_id, month)
);

-- Each live charge's split (charges of 0 credits have none): grants is [{grant_id, credits}] in spending order.
CREATE TABLE charge_allocations (
  charge_id text PRIMARY KEY,
  org_id uuid NOT NULL,
  month text NOT NULL,
  allowance_credits numeric(20, 4) NOT NULL,
  grants jsonb NOT NULL,
  overage_credits numeric(20, 4) NOT NULL
);
CREATE INDEX charge_allocations_org_month_idx ON charge_allocations (org_id, month);

-- Charges projected before this migration: no grant or overage existed, so each month's live credits went to the
-- allowance up to the allowance of today (a plan changed mid-month may make it differ from a rebuild, which splits
-- each charge by the allowance of its moment; `projections rebuild` makes it exact), the rest to overage.
INSERT INTO charge_allocations (charge_id, org_id, month, allowance_credits, grants, overage_credits)
SELECT charge_id, org_id, billing_month, credits - overage, '[]'::jsonb, overage FROM (
  SELECT l.charge_id, l.org_id, l.billing_month, l.credits,
    least(l.credits, greatest(0, sum(l.credits) OVER w - o.monthly_credit_allowance)) AS overage
  FROM ledger_entries l JOIN organizations o ON o.org_id = l.org_id
  WHERE l.key_environment = 'live' AND l.credits > 0
  WINDOW w AS (PARTITION BY l.org_id, l.billing_month ORDER BY l.commit_position, l.prepare_position)
) s;
INSERT INTO spend_months (org_id, month, allowance_credits, grant_credits, overage_credits)
SELECT org_id, month, sum(allowance_credits), 0, sum(overage_credits) FROM charge_allocations GROUP BY org_id, month;
