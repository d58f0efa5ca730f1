-- Why a refused or failed call was refused: its error's text (the body's detail.error), clipped to 300 characters;
-- null for a call that succeeded, and for rows logged before this migration.
ALTER TABLE request_log ADD COLUMN error text;
-- One call by its request id (its detail view, and the ledger's link to it).
CREATE INDEX request_log_request_idx ON request_log (org_id, request_id);
