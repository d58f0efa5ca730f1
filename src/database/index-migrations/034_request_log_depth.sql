-- The depth a logged call asked for, as the ledger names it ('basic' | 'advanced' for search, extract and crawl, the
-- vertical's name, the research model), for POST /logs; null for a call without one (map, a research poll, MCP).
-- Rows logged before this migration have none.
ALTER TABLE request_log ADD COLUMN depth text;
