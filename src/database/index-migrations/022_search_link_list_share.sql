-- The share of a page's visible text that is link text or short list entries (src/search/text/link-list-share.ts),
-- computed by the document writer from the extracted markdown. Ranking multiplies a page's score by a prior that
-- falls as it nears 1 (HUB_PRIOR_WEIGHT in bm25.ts): site indexes, module lists and "genindex" pages hold every term of
-- many queries in their entries, but answer none of them. Pages indexed before this migration count as prose (0)
-- until they are written again.
ALTER TABLE documents ADD COLUMN link_list_share real NOT NULL DEFAULT 0;
