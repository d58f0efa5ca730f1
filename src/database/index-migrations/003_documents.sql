-- The local search index: one row per page that crawl (and later extract) has read, keyed by its canonical URL.
-- Plain state, not a projection of ledger events: a re-crawl overwrites the row. Search adds its ranking columns and
-- tables in later migrations.
CREATE TABLE documents (
  url text PRIMARY KEY,
  domain text NOT NULL,
  title text,
  content text NOT NULL,
  published_date timestamptz,
  language text,
  favicon text,
  images jsonb NOT NULL DEFAULT '[]'::jsonb,
  structured_data jsonb NOT NULL DEFAULT '[]'::jsonb,
  fetched_at timestamptz NOT NULL DEFAULT now(),
  content_hash text NOT NULL
);
CREATE INDEX documents_domain_idx ON documents (domain);
