/**
 * Markdown (what the index stores: the extractor's output) as plain text, for `include_raw_content: "text"`, snippets
 * and answers. Line structure is kept (one block per line); horizontal whitespace is collapsed within each line, so
 * that every sentence taken from the text is a verbatim substring of it.
 */
export function markdownToText(markdown: string): string {
  const lines: string[] = [];
  let inFence = false;
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      lines.push(collapse(raw));
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(raw)) continue; // horizontal rule
    if (/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(raw)) continue; // table separator
    let line = raw
      .replace(/^\s{0,3}#{1,6}\s+/, '') // heading
      .replace(/\s+#+\s*$/, '')
      .replace(/^\s*(>\s?)+/, '') // blockquote
      .replace(/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, ''); // list item, task box
    if (/^\s*\|.*\|\s*$/.test(line)) {
      line = line
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) => cell.trim())
        .filter(Boolean)
        .join(' | ');
    }
    line = inline(line);
    lines.push(collapse(line));
  }
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function inline(text: string): string {
  return (
    text
      // images: their alt text
      .replace(/!\[([^\]]*)\]\((?:[^()\s]+|\([^()]*\))*(?:\s+"[^"]*")?\)/g, '$1')
      // links: their text
      .replace(/\[([^\]]+)\]\((?:[^()\s]+|\([^()]*\))*(?:\s+"[^"]*")?\)/g, '$1')
      .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
      // autolinks and HTML
      .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
      .replace(/<\/?[a-zA-Z][^>]*>/g, '')
      // emphasis and code
      .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, '$1$2')
      .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2')
      .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
      .replace(/`+([^`]+)`+/g, '$1')
      // backslash escapes
      .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
      .replace(/&nbsp;/g, ' ')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
  );
}

function collapse(line: string): string {
  return line.replace(/[ \t\u00a0\f\v]+/g, ' ').trim();
}
