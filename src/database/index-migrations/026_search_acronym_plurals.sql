-- English stemming removes a plural "s" only after a vowel that is not the letter just before it, so an acronym whose
-- last vowel ends it, or that has none, keeps its plural as another lexeme: "GPUs" is 'gpus' and "GPU" 'gpu', "PDFs"
-- 'pdfs', "lncRNAs" 'lncrnas'; a query in the singular missed every page in the plural. search_text now drops the
-- lower-case "s" after two or more capitals (digits may follow the first): GPUs, PDFs, lncRNAs, NSAIDs, CD4s, MP3s.
-- All-capital words (AIDS, GPUS), a single capital (Ms, Ts) and ordinary words (DNases, buses, iOS) are left alone.
-- Measured on SciFact's training claims (npm run eval:search): nDCG@10 0.7062 -> 0.7091 at basic, 0.7095 -> 0.7117 at
-- advanced (0.7002 -> 0.7018 without translations).
CREATE OR REPLACE FUNCTION search_text(t text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
    SELECT regexp_replace(regexp_replace(t, '([[:alnum:]%)\]])\.([[:upper:]])', '\1. \2', 'g'),
                          '\m([[:alnum:]]*[[:upper:]][[:upper:][:digit:]]*[[:upper:][:digit:]])s\M', '\1', 'g')
  $$;

-- The pages that have such a plural are analysed again. The row trigger keeps the old vectors of an update that
-- leaves title and content as they were, so it is off for this one statement; the statement triggers of 004 and 021
-- move the statistics and postings from the old vectors to the new, as for any update.
ALTER TABLE documents DISABLE TRIGGER search_document_vectors;
UPDATE documents d
SET title_tsv = v.title_tsv, body_tsv = v.body_tsv,
    title_len = search_tsv_length(v.title_tsv), body_len = search_tsv_length(v.body_tsv)
FROM (
  SELECT doc_id,
         to_tsvector('english'::regconfig, search_text(left(coalesce(title, ''), 2000))) AS title_tsv,
         to_tsvector('english'::regconfig, search_text(left(content, 200000))) AS body_tsv
  FROM documents
  WHERE coalesce(title, '') ~ '[[:upper:]][[:upper:][:digit:]]*[[:upper:][:digit:]]s\M'
     OR content ~ '[[:upper:]][[:upper:][:digit:]]*[[:upper:][:digit:]]s\M'
) v
WHERE d.doc_id = v.doc_id AND (d.title_tsv <> v.title_tsv OR d.body_tsv <> v.body_tsv);
ALTER TABLE documents ENABLE TRIGGER search_document_vectors;

-- Translations learned from or to a plural that is no longer a term are learned again (term-translations.ts).
DELETE FROM search_translations tr
WHERE NOT EXISTS (SELECT 1 FROM search_terms t WHERE t.lexeme = tr.lexeme AND t.df > 0)
   OR EXISTS (SELECT 1 FROM unnest(tr.translations) w
              WHERE NOT EXISTS (SELECT 1 FROM search_terms t WHERE t.lexeme = w AND t.df > 0));
