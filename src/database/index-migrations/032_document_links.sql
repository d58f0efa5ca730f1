-- A page's outgoing links as its read found them (normalized absolute URLs with their anchor texts:
-- [{"url": "...", "text": "..."}], in page order), so that crawl can take a page from the index (the page cache)
-- instead of fetching it again: it needs the links to go on from there. NULL: not known (rows written before this
-- migration, which crawl therefore fetches again).
ALTER TABLE documents ADD COLUMN links jsonb;
