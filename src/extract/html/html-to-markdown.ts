import gfmPlugins from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import type { DomElement } from './dom.js';
import { trimLineEnds } from '../../common/linear-text.js';

interface TurndownNode {
  nodeName: string;
  getAttribute(name: string): string | null;
  parentNode: TurndownNode | null;
  childNodes: ArrayLike<TurndownNode>;
  querySelector(selector: string): TurndownNode | null;
  textContent: string | null;
}

const cellText = (content: string) => content.replace(/\n+/g, ' ').replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

function cellsOf(row: TurndownNode): TurndownNode[] {
  return Array.from(row.childNodes).filter((n) => n.nodeName === 'TH' || n.nodeName === 'TD');
}

function isHeaderRow(row: TurndownNode): boolean {
  if (row.parentNode?.nodeName === 'THEAD') return true;
  const cells = cellsOf(row);
  return cells.length > 0 && cells.every((cell) => cell.nodeName === 'TH') && firstRowOf(tableOf(row)) === row;
}

function tableOf(node: TurndownNode): TurndownNode | null {
  let parent = node.parentNode;
  while (parent && parent.nodeName !== 'TABLE') parent = parent.parentNode;
  return parent;
}

function rowsOf(table: TurndownNode | null): TurndownNode[] {
  if (!table) return [];
  const rows: TurndownNode[] = [];
  const visit = (node: TurndownNode) => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeName === 'TR') rows.push(child);
      else if (['THEAD', 'TBODY', 'TFOOT'].includes(child.nodeName)) visit(child);
    }
  };
  visit(table);
  return rows;
}

const firstRowOf = (table: TurndownNode | null) => rowsOf(table)[0] ?? null;
const columnsOf = (table: TurndownNode) => Math.max(1, ...rowsOf(table).map((row) => cellsOf(row).length));
const separator = (columns: number) => `|${' --- |'.repeat(columns)}`;

/**
 * GFM tables for every data table (layout tables are unwrapped before). The plugin's own table rules leave tables
 * holding code, lists or headings as raw HTML; these rules always write a pipe table, cell content on one line.
 */
function pipeTables(service: TurndownService): void {
  service.addRule('pipeTableCell', {
    filter: ['th', 'td'],
    replacement: (content) => ` ${cellText(content)} |`,
  });
  service.addRule('pipeTableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = node as unknown as TurndownNode;
      const table = tableOf(row);
      const line = `|${content}`;
      if (table && isHeaderRow(row)) return `\n${line}\n${separator(columnsOf(table))}`;
      return `\n${line}`;
    },
  });
  service.addRule('pipeTableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
  service.addRule('pipeTableCaption', { filter: ['caption', 'colgroup', 'col'], replacement: () => '' });
  service.addRule('pipeTable', {
    filter: 'table',
    replacement: (content, node) => {
      const table = node as unknown as TurndownNode;
      const first = firstRowOf(table);
      const header =
        first && isHeaderRow(first) ? '' : `|${' |'.repeat(columnsOf(table))}\n${separator(columnsOf(table))}\n`;
      const caption = table.querySelector('caption')?.textContent?.replace(/\s+/g, ' ').trim();
      const body = content.replace(/\n+/g, '\n').trim();
      return `\n\n${caption ? `${caption}\n\n` : ''}${header}${body}\n\n`;
    },
  });
}

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    hr: '---',
  });
  service.use(gfmPlugins.gfm);
  pipeTables(service);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'video', 'audio', 'object', 'embed', 'form']);
  // Images are reported in `images`; in the text they are only noise.
  service.addRule('noImages', { filter: ['img', 'picture'], replacement: () => '' });
  service.addRule('httpLinks', {
    filter: (node) => node.nodeName === 'A',
    replacement: (content, node) => {
      const text = content.replace(/\s+/g, ' ').trim();
      const href = (node as unknown as TurndownNode).getAttribute('href') ?? '';
      if (!text) return '';
      if (!/^https?:\/\//i.test(href)) return content;
      return `[${text}](${href.replace(/[()]/g, (c: string) => encodeURIComponent(c))})`;
    },
  });
  return service;
}

let shared: TurndownService | undefined;

/**
 * Markdown of an extracted content element. Turndown is given the element itself (it converts a copy), not its HTML:
 * serializing a big page and parsing it again with turndown's own parser took a third of the conversion's time.
 */
export function htmlToMarkdown(root: DomElement): string {
  shared ??= createService();
  // The parser leaves a text split where it met a character reference ("a ", "> b"): as one text node again, a `>`
  // inside it is not taken for the start of a quote and escaped.
  (root as unknown as { normalize(): void }).normalize();
  return tidyMarkdown(shared.turndown(root as unknown as TurndownService.Node));
}

function tidyMarkdown(markdown: string): string {
  return trimLineEnds(markdown)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
