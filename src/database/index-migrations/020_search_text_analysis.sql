-- Text as the index analyses it. PostgreSQL's parser reads "word.Word" as one host or file name token ("cells.We"
-- becomes the lexeme 'cells.we'), so when a sentence ends without a space before the next one — extracted text where
-- two blocks met, abstracts joined from sentences — both words were lost to search. search_text puts the space back
-- between a word (or a closing bracket, a percent sign) and a full stop followed by a capital letter; host names,
-- file names and versions, written in lower case, are left alone. Documents, queries, snippets and exact_match
-- phrases all go through it, so a query analyses to the lexemes its page was indexed under.
CREATE FUNCTION search_text(t text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT regexp_replace(t, '([[:alnum:]%)\]])\.([[:upper:]])', '\1. \2', 'g') $$;

-- The term vectors and lengths were generated columns, which analysed every field twice (once for the vector, once for
-- its length) and again on every re-crawl of an unchanged page. They become plain columns that a row trigger fills:
-- each field analysed once, and not at all when an update leaves title and content as they were. Whatever the writer
-- puts in them is overwritten, so they stay a function of title and content. The statistics stay statement-level
-- (004's triggers): one update of search_terms per written batch.
DROP INDEX documents_title_tsv_idx;
DROP INDEX documents_body_tsv_idx;
ALTER TABLE documents DROP COLUMN title_tsv, DROP COLUMN body_tsv, DROP COLUMN title_len, DROP COLUMN body_len;
ALTER TABLE documents
  ADD COLUMN title_tsv tsvector NOT NULL DEFAULT ''::tsvector,
  ADD COLUMN body_tsv tsvector NOT NULL DEFAULT ''::tsvector,
  ADD COLUMN title_len integer NOT NULL DEFAULT 0,
  ADD COLUMN body_len integer NOT NULL DEFAULT 0;
-- Kept in the row, compressed (see 004): ranking reads the vectors of every candidate.
ALTER TABLE documents ALTER COLUMN title_tsv SET STORAGE MAIN, ALTER COLUMN body_tsv SET STORAGE MAIN;

CREATE FUNCTION search_document_vectors() RETURNS trigger
  LANGUAGE plpgsql SET search_path FROM CURRENT
  AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.title IS NOT DISTINCT FROM OLD.title AND NEW.content = OLD.content THEN
    NEW.title_tsv := OLD.title_tsv;
    NEW.body_tsv := OLD.body_tsv;
    NEW.title_len := OLD.title_len;
    NEW.body_len := OLD.body_len;
    RETURN NEW;
  END IF;
  -- The body is cut at 200,000 characters so that no page can make to_tsvector exceed its 1 MB limit.
  NEW.title_tsv := to_tsvector('english'::regconfig, search_text(left(coalesce(NEW.title, ''), 2000)));
  NEW.body_tsv := to_tsvector('english'::regconfig, search_text(left(NEW.content, 200000)));
  NEW.title_len := search_tsv_length(NEW.title_tsv);
  NEW.body_len := search_tsv_length(NEW.body_tsv);
  RETURN NEW;
END
$$;

UPDATE documents
SET title_tsv = to_tsvector('english'::regconfig, search_text(left(coalesce(title, ''), 2000))),
    body_tsv = to_tsvector('english'::regconfig, search_text(left(content, 200000)));
UPDATE documents SET title_len = search_tsv_length(title_tsv), body_len = search_tsv_length(body_tsv);

CREATE TRIGGER search_document_vectors BEFORE INSERT OR UPDATE ON documents
  FOR EACH ROW EXECUTE FUNCTION search_document_vectors();


CREATE INDEX documents_title_tsv_idx ON documents USING gin (title_tsv);
CREATE INDEX documents_body_tsv_idx ON documents USING gin (body_tsv);

SELECT search_stats_rebuild();
