-- Term translations learned from the index itself (a translation language model in the style of Berger & Lafferty,
-- with Karimzadehgan & Zhai's mutual-information estimate): for a term u, the few terms w that co-occur with u in more
-- documents than chance would have them, weighted by the mutual information of "contains u" and "contains w". Ranking
-- counts a document's occurrences of u's translations as a fraction of occurrences of u (src/search/index/bm25.ts,
-- TRANSLATION), so that a claim about "neoplasms" also finds the abstract that only says "tumour".
--
-- Rows are computed off the query path, for the terms that queries use (src/search/index/term-translations.ts), from
-- the `sample` highest-impact postings of u; `doc_count` is the corpus size then, so that a grown corpus recomputes
-- them. A term with no translation has a row with empty arrays (computed, nothing found).
CREATE TABLE search_translations (
  lexeme text PRIMARY KEY,
  doc_count bigint NOT NULL,
  translations text[] NOT NULL,
  weights real[] NOT NULL,
  computed_at timestamptz NOT NULL DEFAULT now()
);

-- The computation looks terms up by id (postings hold ids).
CREATE INDEX search_terms_term_id_idx ON search_terms (term_id);

-- The mutual information of two binary variables ("contains u", "contains w") over n documents, from the number of
-- documents holding both (a) and each (nu, nw): Σ p(x,y)·ln(p(x,y) / (p(x)·p(y))).
CREATE FUNCTION search_mutual_information(a float8, n float8, nu float8, nw float8) RETURNS float8
  LANGUAGE sql IMMUTABLE
  AS $$
    SELECT sum(CASE WHEN c.joint > 0 THEN c.joint / n * ln(c.joint * n / (c.x * c.y)) ELSE 0 END)
    FROM (VALUES (a, nu, nw), (nu - a, nu, n - nw), (nw - a, n - nu, nw), (n - nu - nw + a, n - nu, n - nw))
      AS c(joint, x, y)
  $$;

-- Computes (or recomputes) the translations of `lexemes`: for each term u, the documents of its `sample`
-- highest-impact postings, the terms those documents hold (in at least two of them), each term's co-occurrence count
-- scaled to the whole corpus when the sample is smaller than u's document frequency, and the `top` terms with the
-- highest mutual information among those positively associated with u and at most `max_df_ratio` times as common as u
-- (a common word would otherwise become every rare term's translation). Weights are the mutual information,
-- normalised to sum to 1. Postings are read through their two indexes (term → documents, document → terms), and
-- terms by id: a hash join would read all of search_terms; JIT would cost more than the query.
CREATE FUNCTION search_translations_compute(lexemes text[], sample integer, top integer, max_df_ratio float8)
  RETURNS void
  LANGUAGE plpgsql SET search_path FROM CURRENT SET jit = off SET enable_hashjoin = off
  AS $$
BEGIN
  INSERT INTO search_translations AS s (lexeme, doc_count, translations, weights, computed_at)
  SELECT src.lexeme, c.doc_count, coalesce(best.translations, '{}'), coalesce(best.weights, '{}'), now()
  FROM search_corpus_stats c
  CROSS JOIN (SELECT t.lexeme, t.term_id, t.df FROM search_terms t WHERE t.lexeme = ANY(lexemes)) src
  LEFT JOIN LATERAL (
    WITH sampled AS (
      SELECT p.doc_id FROM search_postings p WHERE p.term_id = src.term_id ORDER BY p.impact DESC LIMIT sample
    ), pairs AS (
      SELECT w.lexeme, least(co.hits * src.df::float8 / (SELECT count(*) FROM sampled), src.df, w.df) AS a,
             w.df::float8 AS nw
      FROM (
        SELECT p.term_id, count(*) AS hits
        FROM sampled d JOIN search_postings p ON p.doc_id = d.doc_id
        WHERE p.term_id <> src.term_id
        GROUP BY p.term_id
        HAVING count(*) >= 2
      ) co
      JOIN search_terms w ON w.term_id = co.term_id
      WHERE w.df <= max_df_ratio * src.df
    ), ranked AS (
      SELECT pr.lexeme, search_mutual_information(pr.a, c.doc_count, src.df, pr.nw) AS mi
      FROM pairs pr
      -- positively associated only: more documents hold both than independence would give
      WHERE pr.a * c.doc_count > src.df * pr.nw AND c.doc_count > src.df AND c.doc_count > pr.nw
      ORDER BY mi DESC, pr.lexeme
      LIMIT top
    )
    SELECT array_agg(r.lexeme ORDER BY r.mi DESC, r.lexeme) AS translations,
           array_agg((r.mi / (SELECT sum(mi) FROM ranked))::real ORDER BY r.mi DESC, r.lexeme) AS weights
    FROM ranked r
  ) best ON true
  -- rows locked in one order on every node: two nodes learning overlapping batches wait, never deadlock
  ORDER BY src.lexeme COLLATE "C"
  ON CONFLICT (lexeme) DO UPDATE
    SET doc_count = excluded.doc_count, translations = excluded.translations, weights = excluded.weights,
        computed_at = excluded.computed_at;
END
$$;

-- Translations follow the corpus they were learned from: the repair tool forgets them (they are computed again as
-- queries use their terms).
CREATE OR REPLACE FUNCTION search_stats_rebuild() RETURNS void
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  LOCK TABLE documents IN SHARE MODE;
  DELETE FROM search_terms;
  DELETE FROM search_corpus_stats;
  DELETE FROM search_postings;
  DELETE FROM search_translations;
  INSERT INTO search_corpus_stats (doc_count, title_len_sum, body_len_sum) VALUES (0, 0, 0);
  PERFORM search_stats_apply(1, array_agg(title_tsv), array_agg(body_tsv), array_agg(title_len), array_agg(body_len))
  FROM documents;
  PERFORM search_postings_add(array_agg(doc_id), array_agg(title_tsv), array_agg(body_tsv), array_agg(title_len),
                              array_agg(body_len))
  FROM documents;
END
$$;
