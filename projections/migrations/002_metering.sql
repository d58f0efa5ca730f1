-- Volume-priced units per organization, month, environment and price class (extract:basic, map, ...): the running
-- counts that make "1 credit per 5 successful URLs" exact across calls, and seed the Redis accumulators.
CREATE TABLE monthly_units (
  org_id uuid NOT NULL,
  month text NOT NULL,
  environment text NOT NULL,
  price_class text NOT NULL,
  units bigint NOT NULL,
  credits numeric(20, 4) NOT NULL,
  PRIMARY KEY (org_id, month, environment, price_class)
);
