/** Where the CLI writes: process.stdout/stderr in production, capturing streams in the tests. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${line}\n`);
}

export function writeJson(stream: NodeJS.WritableStream, value: unknown): void {
  writeLine(
    stream,
    JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2),
  );
}

export type Cell = string | number | null | undefined;

/** A plain left-aligned text table; numbers are right-aligned. */
export function formatTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = (cell: Cell) => (cell === null || cell === undefined ? '-' : String(cell));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => text(r[i]).length)));
  const line = (cells: readonly Cell[], header: boolean) =>
    cells
      .map((cell, i) =>
        !header && typeof cell === 'number' ? text(cell).padStart(widths[i]!) : text(cell).padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  return [line(headers, true), ...rows.map((r) => line(r, false))].join('\n');
}
