import { type Figure, percentile, sortedCopy } from '../bench-support.js';

/** One step of the load part of bench:web: this many clients, each asking its next claim as soon as it has an answer. */
export interface LoadStep {
  readonly mode: 'services' | 'embedded';
  readonly clients: number;
  readonly depth: string;
  /** The depth's answer budget (ms): an answer past budget + 200 ms misses the goal. */
  readonly budgetMs: number;
  readonly seconds: number;
  /** Whether a refused client waited the answer's Retry-After before asking again. */
  readonly honourRetryAfter: boolean;
  readonly answered: number;
  readonly searchesPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Answers (200 or not) that came past budget + 200 ms. */
  readonly overBudget: number;
  /** 503s (the node's bound, or a budget spent before any provider answered), and every other failure. */
  readonly unavailable: number;
  readonly errors: number;
  readonly errorSamples: string[];
}

/** What one request gave: its status (0: no HTTP answer) and its time as the client saw it. */
export interface LoadAnswer {
  readonly status: number;
  readonly ms: number;
  readonly error?: string;
  /** A refusal's Retry-After, in milliseconds. */
  readonly retryAfterMs?: number;
}

/**
 * Runs `clients` loops for `seconds`, each asking `ask(i)` with the next query index (every client a different query,
 * none asked twice while the list lasts), and sums the step up. Answers started before the end are waited for. With
 * `honourRetryAfter`, a refused client waits the refusal's Retry-After first, as a polite client would.
 */
export async function loadStep(
  step: {
    mode: 'services' | 'embedded';
    clients: number;
    depth: string;
    budgetMs: number;
    seconds: number;
    honourRetryAfter: boolean;
  },
  ask: (index: number) => Promise<LoadAnswer>,
): Promise<LoadStep> {
  const started = performance.now();
  const endsAt = started + step.seconds * 1000;
  const answers: LoadAnswer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: step.clients }, async () => {
      while (performance.now() < endsAt) {
        const answer = await ask(next++);
        answers.push(answer);
        if (step.honourRetryAfter && answer.retryAfterMs) {
          await new Promise((resolve) =>
            setTimeout(resolve, Math.min(answer.retryAfterMs!, endsAt - performance.now())),
          );
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const ok = answers.filter((a) => a.status === 200);
  const ms = sortedCopy(answers.map((a) => a.ms));
  const failed = answers.filter((a) => a.status !== 200);
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    ...step,
    seconds: round(seconds),
    answered: answers.length,
    searchesPerSecond: round(ok.length / seconds),
    p50: round(percentile(ms, 50)),
    p99: round(percentile(ms, 99)),
    max: round(percentile(ms, 100)),
    overBudget: answers.filter((a) => a.ms > step.budgetMs + 200).length,
    unavailable: failed.filter((a) => a.status === 503).length,
    errors: failed.filter((a) => a.status !== 503).length,
    errorSamples: [...new Set(failed.map((a) => `${a.status} ${a.error ?? ''}`.slice(0, 160)))].slice(0, 3),
  };
}

export function loadTable(steps: readonly LoadStep[]): string {
  const header = [
    'mode',
    'clients',
    'depth',
    'searches/s',
    'p50',
    'p99',
    'max',
    'over budget + 200 ms',
    '503',
    'errors',
  ];
  const lines = steps.map((s) => [
    s.mode,
    String(s.clients),
    s.depth,
    s.searchesPerSecond.toFixed(1),
    `${Math.round(s.p50)} ms`,
    `${Math.round(s.p99)} ms`,
    `${Math.round(s.max)} ms`,
    `${s.overBudget} of ${s.answered}`,
    String(s.unavailable),
    String(s.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(line)].join('\n');
}

/** Per step: its rate and latencies, and issue 40's goal, no answer past budget + 200 ms, as met or missed. */
export function loadFigures(steps: readonly LoadStep[]): Figure[] {
  return steps.flatMap((s) => {
    const name = `load ${s.mode} ${s.clients} clients ${s.depth}`;
    return [
      { bench: 'web', measure: `${name} searches/s`, value: s.searchesPerSecond, unit: '/s' },
      { bench: 'web', measure: `${name} p50`, value: s.p50, unit: 'ms' },
      { bench: 'web', measure: `${name} p99`, value: s.p99, unit: 'ms' },
      {
        bench: 'web',
        measure: `${name} answers past budget + 200 ms (of ${s.answered}; ${s.unavailable} 503, ${s.errors} errors)`,
        value: s.overBudget,
        unit: '',
        target: `0 (budget ${s.budgetMs} ms)`,
        met: s.overBudget === 0,
      },
    ];
  });
}
