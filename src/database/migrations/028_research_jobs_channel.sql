-- Where a research task was submitted (`rest`: POST /research, `mcp`: the MCP research tool), for its one
-- CreditsCharged to carry, as every other charge carries its channel.
ALTER TABLE research_jobs ADD COLUMN channel text NOT NULL DEFAULT 'rest';
