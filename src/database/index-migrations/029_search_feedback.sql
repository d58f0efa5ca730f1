-- The results a search showed (its query and each result's id, URL, title and score), kept for
-- SEARCH_RESULT_RETENTION_DAYS so that feedback naming a result id can be resolved within the organization that
-- searched. A result id is `<request_id>-<position>`; a lookup is always by (org_id, request_id).
CREATE TABLE search_result_sets (
  org_id uuid NOT NULL,
  request_id text NOT NULL,
  project_id uuid NOT NULL,
  key_id uuid NOT NULL,
  query text NOT NULL,
  search_depth text NOT NULL,
  results jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, request_id)
);
CREATE INDEX search_result_sets_created_idx ON search_result_sets (created_at);

-- Feedback on search results (POST /feedback), per organization: what the client sent, as validated, and the
-- judgments resolved from it (the query of the search it names, and a gain per result URL). Not billed.
CREATE TABLE search_feedback (
  feedback_id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  project_id uuid NOT NULL,
  key_id uuid NOT NULL,
  -- The search the feedback is about, when it names one of the organization's (by request_id or result ids).
  request_id text,
  query text,
  feedback jsonb NOT NULL,
  judgments jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX search_feedback_org_idx ON search_feedback (org_id, created_at, feedback_id);
