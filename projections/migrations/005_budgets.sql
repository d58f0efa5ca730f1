-- Monthly credit limits of keys and projects (KeyBudgetSet, ProjectBudgetSet); null: none of their own.
ALTER TABLE api_keys ADD COLUMN monthly_credit_limit bigint;
ALTER TABLE projects ADD COLUMN monthly_credit_limit bigint;
