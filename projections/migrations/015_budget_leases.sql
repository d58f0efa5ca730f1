-- The budget leases a charge drew on (CreditsCharged.budget_leases): what a dead node's budget lease spent.
ALTER TABLE ledger_entries ADD COLUMN budget_leases text[];
