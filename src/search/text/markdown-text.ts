import { stripTags, trimChars, trimEndChars } from '../../common/linear-text.js';

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
    if (isTableSeparator(raw)) continue;
    let line = withoutClosingHashes(raw.replace(/^\s{0,3}#{1,6}\s+/, '')) // heading
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

/**
 * Inline markup as its text. Every pattern here runs on text from the web, so none may rescan what it has read: a
 * link's text and destination hold no brackets, a tag no `<`, and paired delimiters are matched in one pass
 * (`unwrapPairs`), so each scan stops at the next place another match could start.
 */
function inline(text: string): string {
  let out = text
    // images: their alt text; links: their text (a destination may hold one level of parentheses, and a title)
    .replace(/!\[([^[\]]*)\]\((?:[^()[\]\s]|\([^()[\]\s]*\))*(?:\s+"[^"]*")?\)/g, '$1')
    .replace(/\[([^[\]]+)\]\((?:[^()[\]\s]|\([^()[\]\s]*\))*(?:\s+"[^"]*")?\)/g, '$1')
    .replace(/\[([^[\]]+)\]\[[^[\]]*\]/g, '$1')
    // autolinks and HTML
    .replace(/<((?:https?|mailto):[^<>\s]+)>/g, '$1');
  out = stripTags(out);
  // emphasis and code
  out = unwrapPairs(unwrapPairs(unwrapPairs(out, '**'), '__'), '~~')
    .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1$2')
    .replace(/(?<!`)`+([^`]+)`+/g, '$1');
  return (
    out
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

/**
 * Spans wrapped in `delimiter` (`**bold**`, `~~struck~~`) as their content, exactly as `/D(?=\S)([\s\S]*?\S)D/g`
 * would replace them with `$1`, in one pass: the pattern rescans the rest of the text from every opener that has no
 * closer, which is quadratic in the number of openers.
 */
export function unwrapPairs(text: string, delimiter: string): string {
  const width = delimiter.length;
  if (text.indexOf(delimiter) < 0) return text;
  const isNonSpace = (at: number) => at >= 0 && at < text.length && !/\s/.test(text[at]!);
  const closers: number[] = [];
  for (let at = text.indexOf(delimiter, 1); at >= 0; at = text.indexOf(delimiter, at + 1)) {
    if (isNonSpace(at - 1)) closers.push(at);
  }
  let out = '';
  let copied = 0;
  let next = 0;
  for (let at = text.indexOf(delimiter); at >= 0;) {
    if (!isNonSpace(at + width)) {
      at = text.indexOf(delimiter, at + 1);
      continue;
    }
    while (next < closers.length && closers[next]! < at + width + 1) next++;
    // A later opener needs a later closer still: none is left for any of them.
    if (next === closers.length) break;
    const close = closers[next]!;
    out += text.slice(copied, at) + text.slice(at + width, close);
    copied = close + width;
    at = text.indexOf(delimiter, copied);
  }
  return out + text.slice(copied);
}

/** A table's header separator: cells of dashes (`---`, `:--:`) between optional pipes. */
function isTableSeparator(line: string): boolean {
  return trimChars(line.trim(), '|')
    .split('|')
    .every((cell) => /^:?-{2,}:?$/.test(cell.trim()));
}

/** An ATX heading's closing hashes (`Title ##`): a run of `#` at the end, after white space. */
function withoutClosingHashes(line: string): string {
  const trimmed = line.trimEnd();
  const hashes = trimEndChars(trimmed, '#');
  if (hashes.length === trimmed.length || hashes.length === 0 || !/\s/.test(hashes[hashes.length - 1]!)) return line;
  return hashes.trimEnd();
}

function collapse(line: string): string {
  return line.replace(/[ \t\u00a0\f\v]+/g, ' ').trim();
}
