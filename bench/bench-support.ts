/** Shared by the benchmarks and bench/run-all.ts: one shape for every measured figure, and how it is printed. */

/** One measured figure, with the baseline it is compared with when there is one (measured in the same run). */
export interface Figure {
  /** Which benchmark measured it: `metering`, `ledger`, `search`, `crawl`. */
  readonly bench: string;
  readonly measure: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: { readonly label: string; readonly value: number };
  /** value / baseline.value, or for `added` latencies value - baseline.value (in the figure's unit). */
  readonly ratio?: number;
  readonly added?: number;
  /** The target (issues 8 and 13), as text, and whether this run reached it. */
  readonly target?: string;
  readonly met?: boolean;
}

/** What a benchmark prints as its last stdout line (one JSON object) for bench/run-all.ts to collect. */
export interface BenchReport {
  readonly bench: string;
  readonly figures: readonly Figure[];
  readonly details?: Record<string, unknown>;
}

/** The p-th percentile (nearest rank) of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function sortedCopy(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

export const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/** This process's peak resident set size so far, in bytes. */
export const peakRssBytes = () => Math.max(process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);

function formatNumber(value: number, unit: string): string {
  if (!Number.isFinite(value)) return '—';
  const digits =
    unit === 'ms'
      ? Math.abs(value) < 10
        ? 2
        : 1
      : Number.isInteger(value) || Math.abs(value) >= 100
        ? 0
        : unit === '' && Math.abs(value) < 1
          ? 3 // a share or a score (nDCG, recall)
          : 1;
  return `${value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${unit}`.trimEnd();
}

/** Prints figures as a Markdown table (a figure with `added` shows `+x ms` in the ratio column). */
export function figuresTable(figures: readonly Figure[]): string {
  const rows = figures.map((f) => [
    f.bench,
    f.measure,
    formatNumber(f.value, f.unit),
    f.baseline ? `${formatNumber(f.baseline.value, f.unit)} ${f.baseline.label}` : '',
    f.added !== undefined
      ? Number.isFinite(f.added)
        ? `${f.added >= 0 ? '+' : ''}${formatNumber(f.added, f.unit)}`
        : '—'
      : f.ratio !== undefined
        ? Number.isFinite(f.ratio)
          ? `${f.ratio.toFixed(2)}×`
          : '—'
        : '',
    f.target ? `${f.target} ${f.met ? 'met' : 'MISSED'}` : '',
  ]);
  const header = ['bench', 'measure', 'value', 'baseline (same run)', 'ratio', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
