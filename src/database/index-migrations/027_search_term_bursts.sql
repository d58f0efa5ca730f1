-- Collection frequency of every lexeme: its occurrences in all titles and bodies (the positions of title || body, at
-- most 256 a document as PostgreSQL keeps them). With df it gives a term's burstiness, cf / df, the occurrences of a
-- term in a document that has it: words that carry a topic come in bursts, words used in passing once (Church & Gale
-- 1995). Ranking weighs query terms by it (bm25.ts, BURSTINESS).
ALTER TABLE search_terms ADD COLUMN cf bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION search_stats_apply(sign integer, titles tsvector[], bodies tsvector[], title_lens integer[],
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

  INSERT INTO search_terms AS t (lexeme, df, cf)
  SELECT u.lexeme, sign * count(*), sign * sum(coalesce(array_length(u.positions, 1), 1))
  FROM unnest(titles, bodies) AS d(title, body), unnest(d.title || d.body) AS u
  GROUP BY u.lexeme
  ORDER BY u.lexeme
  ON CONFLICT (lexeme) DO UPDATE SET df = t.df + EXCLUDED.df, cf = t.cf + EXCLUDED.cf;
END
$$;

-- The backfill, with writers held off so that none is counted twice or not at all.
LOCK TABLE documents IN SHARE MODE;
UPDATE search_terms t
SET cf = x.cf
FROM (
  SELECT u.lexeme, sum(coalesce(array_length(u.positions, 1), 1)) AS cf
  FROM documents d, unnest(d.title_tsv || d.body_tsv) AS u
  GROUP BY u.lexeme
) x
WHERE t.lexeme = x.lexeme;
