-- Search over the local index (documents, 003): BM25F ranking needs per-field term vectors, each document's field
-- lengths, every lexeme's document frequency and the corpus totals. Term vectors and lengths are stored generated
-- columns (the vectors GIN-indexed: candidate retrieval); the statistics are kept exact by statement-level triggers, so
-- any writer (crawl's DocumentIndexWriter, the `index` CLI, a plain INSERT) keeps them right without knowing of
-- them. Core PostgreSQL only (plpgsql, no extensions): the same SQL runs on PGlite.

-- Length of a field in tokens: the positions of its term vector (PostgreSQL keeps at most 256 per lexeme).
CREATE FUNCTION search_tsv_length(v tsvector) RETURNS integer
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)::integer FROM unnest(v) $$;

-- Titles and bodies analysed with English stemming, and their lengths (BM25's length normalisation reads them from
-- the row it scores, with no join). The body is cut at 200,000 characters so that no page can make to_tsvector exceed
-- its 1 MB limit and fail the writer's INSERT (positions beyond 16,383 are clamped by PostgreSQL anyway).
ALTER TABLE documents
  ADD COLUMN title_tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('english'::regconfig, left(coalesce(title, ''), 2000))) STORED,
  ADD COLUMN body_tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('english'::regconfig, left(content, 200000))) STORED,
  ADD COLUMN title_len integer
    GENERATED ALWAYS AS (search_tsv_length(to_tsvector('english'::regconfig, left(coalesce(title, ''), 2000)))) STORED,
  ADD COLUMN body_len integer
    GENERATED ALWAYS AS (search_tsv_length(to_tsvector('english'::regconfig, left(content, 200000)))) STORED;

-- The term vectors stay in the row, compressed, rather than out of line in the TOAST table: ranking reads the vectors
-- of every candidate, and a TOAST fetch (index lookup, chunk pages) costs more than decompressing in place.
ALTER TABLE documents ALTER COLUMN title_tsv SET STORAGE MAIN, ALTER COLUMN body_tsv SET STORAGE MAIN;

CREATE INDEX documents_title_tsv_idx ON documents USING gin (title_tsv);
CREATE INDEX documents_body_tsv_idx ON documents USING gin (body_tsv);
CREATE INDEX documents_published_date_idx ON documents (published_date);

-- Document frequency of every lexeme, counting a document once whether the lexeme is in its title, body or both
-- (BM25F: one IDF per term). Rows that fall to 0 are kept (they match nothing, so they never score).
CREATE TABLE search_terms (
  lexeme text PRIMARY KEY,
  df integer NOT NULL
);

-- One row: document count and the sums of field lengths (average lengths = sum / count).
CREATE TABLE search_corpus_stats (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  doc_count bigint NOT NULL,
  title_len_sum bigint NOT NULL,
  body_len_sum bigint NOT NULL
);

-- Adds (sign = 1) or removes (sign = -1) documents from the statistics. Lexemes are written in sorted order after the
-- corpus row, so that concurrent writers lock rows in one order (no deadlock).
CREATE FUNCTION search_stats_apply(sign integer, titles tsvector[], bodies tsvector[], title_lens integer[],
                                   body_lens integer[]) RETURNS void
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  IF coalesce(array_length(titles, 1), 0) = 0 THEN
    RETURN;
  END IF;
  UPDATE search_corpus_stats c
  SET doc_count = c.doc_count + sign * array_length(titles, 1),
      title_len_sum = c.title_len_sum + sign * (SELECT coalesce(sum(l), 0) FROM unnest(title_lens) l),
      body_len_sum = c.body_len_sum + sign * (SELECT coalesce(sum(l), 0) FROM unnest(body_lens) l)
  WHERE c.singleton;

  INSERT INTO search_terms AS t (lexeme, df)
  SELECT lexeme, sign * count(*)
  FROM unnest(titles, bodies) AS d(title, body), unnest(tsvector_to_array(d.title || d.body)) AS lexeme
  GROUP BY lexeme
  ORDER BY lexeme
  ON CONFLICT (lexeme) DO UPDATE SET df = t.df + EXCLUDED.df;
END
$$;

CREATE FUNCTION search_documents_inserted() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  PERFORM search_stats_apply(1, array_agg(title_tsv), array_agg(body_tsv), array_agg(title_len), array_agg(body_len))
  FROM new_rows;
  RETURN NULL;
END
$$;

CREATE FUNCTION search_documents_deleted() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  PERFORM search_stats_apply(-1, array_agg(title_tsv), array_agg(body_tsv), array_agg(title_len), array_agg(body_len))
  FROM old_rows;
  RETURN NULL;
END
$$;

-- An update is the removal of the old rows and the addition of the new ones, leaving out rows whose URL and term
-- vectors did not change (a re-crawl of an unchanged page costs nothing here).
CREATE FUNCTION search_documents_updated() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  PERFORM search_stats_apply(-1, array_agg(o.title_tsv), array_agg(o.body_tsv), array_agg(o.title_len),
                             array_agg(o.body_len))
  FROM old_rows o
  WHERE NOT EXISTS (SELECT 1 FROM new_rows n
                    WHERE n.url = o.url AND n.title_tsv = o.title_tsv AND n.body_tsv = o.body_tsv);
  PERFORM search_stats_apply(1, array_agg(n.title_tsv), array_agg(n.body_tsv), array_agg(n.title_len),
                             array_agg(n.body_len))
  FROM new_rows n
  WHERE NOT EXISTS (SELECT 1 FROM old_rows o
                    WHERE n.url = o.url AND n.title_tsv = o.title_tsv AND n.body_tsv = o.body_tsv);
  RETURN NULL;
END
$$;

CREATE FUNCTION search_documents_truncated() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  DELETE FROM search_terms;
  UPDATE search_corpus_stats SET doc_count = 0, title_len_sum = 0, body_len_sum = 0;
  RETURN NULL;
END
$$;

CREATE TRIGGER search_documents_inserted AFTER INSERT ON documents
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_documents_inserted();
CREATE TRIGGER search_documents_updated AFTER UPDATE ON documents
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_documents_updated();
CREATE TRIGGER search_documents_deleted AFTER DELETE ON documents
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_documents_deleted();
CREATE TRIGGER search_documents_truncated AFTER TRUNCATE ON documents
  FOR EACH STATEMENT EXECUTE FUNCTION search_documents_truncated();

-- Recomputes every statistic from the documents (the migration's backfill; a repair tool for operators).
CREATE FUNCTION search_stats_rebuild() RETURNS void
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  LOCK TABLE documents IN SHARE MODE;
  DELETE FROM search_terms;
  DELETE FROM search_corpus_stats;
  INSERT INTO search_corpus_stats (doc_count, title_len_sum, body_len_sum) VALUES (0, 0, 0);
  PERFORM search_stats_apply(1, array_agg(title_tsv), array_agg(body_tsv), array_agg(title_len), array_agg(body_len))
  FROM documents;
END
$$;

SELECT search_stats_rebuild();
