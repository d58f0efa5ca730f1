import { type DomElement, normalizeSpace, tagOf } from './dom.js';

const BLOCKS = 'p, div, ul, ol, h1, h2, h3, h4, h5, h6, blockquote, pre, section, article';

function rowsOf(table: DomElement): DomElement[] {
  return [...table.querySelectorAll('tr')].filter((row) => row.closest('table') === table);
}

function cellsOf(row: DomElement): DomElement[] {
  return [...row.children].filter((cell) => ['td', 'th'].includes(tagOf(cell)));
}

/**
 * Whether a table lays out the page rather than holding data (Readability's test, roughly): a presentation role,
 * nested tables, a single row or column, or small tables whose cells hold blocks of text.
 */
export function isLayoutTable(table: DomElement): boolean {
  const role = table.getAttribute('role');
  if (role === 'presentation' || role === 'none' || table.getAttribute('datatable') === '0') return true;
  if (table.querySelector('caption, thead, th') || table.hasAttribute('summary')) return false;
  if (table.querySelector('table')) return true;
  const rows = rowsOf(table);
  const columns = Math.max(0, ...rows.map((row) => cellsOf(row).length));
  if (rows.length <= 1 || columns <= 1) return true;
  if (rows.length >= 10 || columns > 4 || rows.length * columns > 10) return false;
  return table.querySelector(BLOCKS) !== null;
}

/** A data table as lines of text, one per row, cells separated by ` | ` (basic depth keeps the words, not the grid). */
export function flattenTable(table: DomElement): void {
  const document = table.ownerDocument;
  const block = document.createElement('div');
  const caption = normalizeSpace(table.querySelector('caption')?.textContent);
  const lines = rowsOf(table)
    .map((row) =>
      cellsOf(row)
        .map((cell) => normalizeSpace(cell.textContent))
        .filter(Boolean)
        .join(' | '),
    )
    .filter(Boolean);
  if (caption) {
    const p = document.createElement('p');
    p.textContent = caption;
    block.appendChild(p);
  }
  if (lines.length > 0) {
    const p = document.createElement('p');
    lines.forEach((line, i) => {
      if (i > 0) p.appendChild(document.createElement('br'));
      p.appendChild(document.createTextNode(line));
    });
    block.appendChild(p);
  }
  table.replaceWith(block);
}

/** A layout table replaced by its cells' contents, in reading order. */
export function unwrapLayoutTable(table: DomElement): void {
  const document = table.ownerDocument;
  const block = document.createElement('div');
  for (const row of rowsOf(table)) {
    for (const cell of cellsOf(row)) {
      const div = document.createElement('div');
      for (const child of [...cell.childNodes]) div.appendChild(child);
      block.appendChild(div);
    }
  }
  table.replaceWith(block);
}
