/** What a spreadsheet reads as the start of a formula (OWASP's list for CSV injection, CWE-1236). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number (a position, an amount): a spreadsheet reads it as a number, never as a formula. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * RFC 4180 CSV: fields separated by commas, records ended by CRLF; a field holding a comma, a double quote, CR or
 * LF is enclosed in double quotes, with each double quote inside doubled. null and undefined are empty fields,
 * objects are written as JSON.
 * Text that a spreadsheet would run as a formula (it begins with =, +, -, @, a tab or a carriage return, as a
 * project name, a key name or an Idempotency-Key may) is written as text: prefixed with a single quote, and quoted.
 * Plain decimal numbers (a negative amount, say) are kept as they are: no spreadsheet evaluates them.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) return `"'${text.replace(/"/g, '""')}"`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRecord(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/**
 * The records of `columns` for every row that `pages` yields, after one header record. A generator, so a response
 * stream pulls one page at a time.
 */
export async function* csvRecords<Row>(
  columns: readonly (keyof Row & string)[],
  pages: AsyncIterable<readonly Row[]>,
): AsyncGenerator<string> {
  yield csvRecord(columns);
  for await (const rows of pages) {
    if (rows.length === 0) continue;
    yield rows.map((row) => csvRecord(columns.map((column) => row[column]))).join('');
  }
}

/**
 * Whether an Accept header asks for CSV rather than JSON: text/csv (or text/*) weighs more than application/json
 * (or application/*, or *\/*). On a tie, and without the header, JSON.
 */
export function prefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    return { type, weight: Number.isFinite(weight) ? weight : 0 };
  });
  const quality = (type: string) => {
    const [main] = type.split('/');
    const exact = ranges.find((r) => r.type === type);
    const partial = ranges.find((r) => r.type === `${main}/*`);
    const any = ranges.find((r) => r.type === '*/*');
    return (exact ?? partial ?? any)?.weight ?? 0;
  };
  const csv = quality('text/csv');
  return csv > 0 && csv > quality('application/json');
}

/** Like csvRecords, with headers of one's choosing and each cell read from the row by its column's function. */
export async function* csvTable<Row>(
  columns: readonly (readonly [string, (row: Row) => unknown])[],
  pages: AsyncIterable<readonly Row[]>,
): AsyncGenerator<string> {
  yield csvRecord(columns.map(([header]) => header));
  for await (const rows of pages) {
    if (rows.length === 0) continue;
    yield rows.map((row) => csvRecord(columns.map(([, read]) => read(row)))).join('');
  }
}
