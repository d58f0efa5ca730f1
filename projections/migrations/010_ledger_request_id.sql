-- The charges of one call, by its request id (the request log's detail view, the ledger's request_id filter).
CREATE INDEX ledger_entries_request_idx ON ledger_entries (org_id, request_id);
