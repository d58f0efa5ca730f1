// Neither a link's text nor its destination holds a bracket, so a scan from one `[` stops at the next.
const IMAGE = /!\[[^[\]]*\]\([^)[\]]*\)/g;
const LINK = /\[([^[\]]*)\]\([^)[\]]*\)/g;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s(.*)$/;
/** A list item of at most this many visible characters is an entry of a list (an index, a menu), not prose. */
const SHORT_ITEM_CHARS = 80;

/** Characters a reader sees: no whitespace, markdown markers or escapes. */
const visibleLength = (text: string) => text.replace(/[\s\\*_`#>|]/g, '').length;

/**
 * The share of a page's visible text (markdown, as extraction writes it) that is link text or short list entries: near
 * 1 for hub pages (site indexes, module lists, "genindex" pages, tables of contents), low for pages of prose. Search
 * ranks pages by it as a prior (see HUB_PRIOR in bm25.ts), so that a page listing every term of a query in its
 * entries does not outrank the page that answers it.
 */
export function linkListShare(markdown: string): number {
  let total = 0;
  let listed = 0;
  for (const line of markdown.split('\n')) {
    const withoutImages = line.replace(IMAGE, '');
    const item = LIST_ITEM.exec(withoutImages);
    let linkChars = 0;
    const text = (item ? item[1]!.trimStart() : withoutImages).replace(LINK, (_link, anchor: string) => {
      linkChars += visibleLength(anchor);
      return anchor;
    });
    const chars = visibleLength(text);
    total += chars;
    listed += item && chars <= SHORT_ITEM_CHARS ? chars : Math.min(chars, linkChars);
  }
  return total > 0 ? listed / total : 0;
}
