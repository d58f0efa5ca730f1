import { type Environment, type Figures, type Usage, api } from './api.js';
import type { Context } from './context.js';
import { type Child, field, formatMonth, formatNumber, h, svg, table, uid } from './dom.js';

const OPERATION_COLORS: Record<string, string> = {
  search: '#1d4ed8',
  vertical: '#b45309',
  extract: '#047857',
  map: '#7c3aed',
  crawl: '#be123c',
};
const colorOf = (op: string) => OPERATION_COLORS[op] ?? '#475569';

export const thisMonth = () => new Date().toISOString().slice(0, 7);

export async function usagePage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const month = /^\d{4}-\d{2}$/.test(ctx.query.get('month') ?? '') ? ctx.query.get('month')! : thisMonth();
  const usage = await api<Usage>('GET', `/orgs/${org.id}/usage?month=${month}`);
  const monthInput = h('input', { type: 'month', name: 'month', value: month, max: thisMonth(), required: true });
  const empty = `No usage in ${formatMonth(month)}.`;
  const liveDays = usage.by_day.filter((d) => d.environment === 'live');
  const testDays = usage.by_day.filter((d) => d.environment === 'test');
  return h(
    'div',
    {},
    h('h1', {}, `Usage of ${org.name}`),
    h(
      'form',
      {
        class: 'row filters',
        onsubmit: (event: Event) => {
          event.preventDefault();
          ctx.navigate(`/orgs/${org.id}/usage?month=${encodeURIComponent(monthInput.value || thisMonth())}`);
        },
      },
      field('Month', monthInput),
      h('button', { type: 'submit', class: 'button secondary' }, 'Show'),
    ),
    h(
      'p',
      { class: 'lead' },
      'Live keys use the monthly allowance, then credit grants, then overage up to its cap; test keys are counted ' +
        'apart and never billed. Every figure says which.',
    ),
    h(
      'div',
      { class: 'summary' },
      gauge(usage),
      h(
        'dl',
        { class: 'stats' },
        stat('Live credits used', formatNumber(usage.credits_used), 'credits-used'),
        stat('Live credits left', formatNumber(usage.credits_remaining), 'credits-left'),
        ...limitStats(usage),
        stat('Live requests', formatNumber(usage.live_requests), 'live-requests'),
        stat('Test credits (not billed)', formatNumber(usage.test_credits_used), 'test-credits'),
        stat('Test requests', formatNumber(usage.test_requests), 'test-requests'),
        // The plan and limits of the month shown, as they were then (today's for the current month).
        usage.plan
          ? stat(
              'Rate limit',
              `${formatNumber(usage.plan.rate_limit_per_minute.live)}/min live · ${formatNumber(
                usage.plan.rate_limit_per_minute.test,
              )}/min test`,
            )
          : null,
        stat('Plan', usage.plan ? usage.plan.plan : 'none yet', 'plan'),
      ),
    ),
    usage.plan
      ? null
      : h('p', { class: 'notice', id: 'no-plan' }, `${org.name} did not exist yet in ${formatMonth(month)}.`),
    h('h2', {}, 'Live credits per day, by operation'),
    dailyChart(usage.month, liveDays, 'live'),
    testDays.length
      ? [h('h2', {}, 'Test credits per day, by operation'), dailyChart(usage.month, testDays, 'test')]
      : null,
    h('h2', {}, 'By project'),
    breakdown(
      'Credits by project, live and test',
      'Project',
      usage.by_project.map((p) => ({ id: p.project_id, label: p.name ?? p.project_id, figures: p })),
      empty,
      'by-project',
    ),
    h('h2', {}, 'By key'),
    breakdown(
      'Credits by key, live and test',
      'Key',
      usage.by_key.map((k) => ({
        id: k.key_id,
        label: [k.name ?? '—', ' ', h('code', { class: 'prefix' }, `${k.prefix ?? ''}…`)],
        figures: k,
      })),
      empty,
      'by-key',
    ),
    h('h2', {}, 'By operation'),
    breakdown(
      'Credits by operation, live and test',
      'Operation',
      usage.by_operation.map((o) => ({ id: o.operation, label: o.operation, figures: o })),
      empty,
      'by-operation',
    ),
  );
}

interface Split {
  label: Child;
  live: { credits: number; requests: number };
  test: { credits: number; requests: number };
}

/**
 * One row per thing (project, key, operation) with its live and test figures side by side, and a total row: the
 * live total is the headline "Live credits used", the test total "Test credits".
 */
function breakdown(
  caption: string,
  name: string,
  rows: { id: string; label: Child; figures: Figures }[],
  empty: string,
  id: string,
): Node {
  const split = new Map<string, Split>();
  for (const row of rows) {
    const entry = split.get(row.id) ?? {
      label: row.label,
      live: { credits: 0, requests: 0 },
      test: { credits: 0, requests: 0 },
    };
    entry[row.figures.environment].credits += row.figures.credits;
    entry[row.figures.environment].requests += row.figures.requests;
    split.set(row.id, entry);
  }
  const all = [...split.values()];
  const total = (environment: Environment, figure: 'credits' | 'requests') =>
    all.reduce((sum, row) => sum + row[environment][figure], 0);
  const totalCell = (environment: Environment, figure: 'credits' | 'requests') =>
    h('span', { 'data-total': `${environment}-${figure}` }, formatNumber(total(environment, figure)));
  return h(
    'div',
    { id },
    table(
      caption,
      [name, 'Live credits', 'Live requests', 'Test credits', 'Test requests'],
      all.map((row) => [
        row.label,
        formatNumber(row.live.credits),
        formatNumber(row.live.requests),
        formatNumber(row.test.credits),
        formatNumber(row.test.requests),
      ]),
      {
        empty,
        footer: [
          'Total',
          totalCell('live', 'credits'),
          totalCell('live', 'requests'),
          totalCell('test', 'credits'),
          totalCell('test', 'requests'),
        ],
      },
    ),
  );
}

function stat(label: string, value: string, id?: string): Node {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', id ? { id } : {}, value));
}

/**
 * The limit and what it counts: this month the allowance, what grants add and the overage cap (the limit the quota
 * enforces); a past month its allowance only.
 */
function limitStats(usage: Usage): Node[] {
  const parts = usage.credits_limit_parts;
  if (parts.grants === null || parts.overage_cap === null) {
    return [stat('Monthly allowance (live)', formatNumber(parts.allowance), 'credits-limit')];
  }
  return [
    stat('Monthly limit (live)', formatNumber(usage.credits_limit), 'credits-limit'),
    stat('Allowance', formatNumber(parts.allowance), 'limit-allowance'),
    stat('Credit grants this month', formatNumber(parts.grants), 'limit-grants'),
    stat('Overage cap', formatNumber(parts.overage_cap), 'limit-overage'),
  ];
}

/** What the gauge's limit counts, in words. */
function limitWords(usage: Usage): string {
  const { allowance, grants, overage_cap: overage } = usage.credits_limit_parts;
  if (grants === null || overage === null) return "the limit is the plan's monthly allowance then";
  const parts = [`allowance ${formatNumber(allowance)}`];
  if (grants > 0) parts.push(`grants ${formatNumber(grants)}`);
  if (overage > 0) parts.push(`overage cap ${formatNumber(overage)}`);
  return `the limit is ${parts.join(' + ')}`;
}

/** A ring: the share of the month's limit used, with the numbers in words next to it and what the limit counts. */
function gauge(usage: Usage): Node {
  const share = usage.credits_limit > 0 ? Math.min(1, usage.credits_used / usage.credits_limit) : 0;
  const percent = usage.credits_limit > 0 ? (usage.credits_used / usage.credits_limit) * 100 : 0;
  const r = 52;
  const circumference = 2 * Math.PI * r;
  const tone = share >= 0.9 ? 'critical' : share >= 0.75 ? 'high' : 'ok';
  // Some use under a tenth of a percent reads "<0.1%", never "(0%)".
  const shown = percent > 0 && percent < 0.1 ? '<0.1' : formatNumber(Math.round(percent * 10) / 10);
  const label = `${formatNumber(usage.credits_used)} of ${formatNumber(usage.credits_limit)} live credits used (${shown}%)`;
  const caption = `${label}; ${limitWords(usage)}`;
  return h(
    'figure',
    { class: 'gauge' },
    svg(
      'svg',
      { viewBox: '0 0 128 128', width: 160, height: 160, role: 'img', 'aria-label': caption },
      svg('circle', { cx: 64, cy: 64, r, class: 'gauge-track', fill: 'none', 'stroke-width': 14 }),
      svg('circle', {
        cx: 64,
        cy: 64,
        r,
        class: `gauge-value gauge-${tone}`,
        fill: 'none',
        'stroke-width': 14,
        'stroke-linecap': share > 0 ? 'round' : 'butt',
        'stroke-dasharray': `${(share * circumference).toFixed(2)} ${circumference.toFixed(2)}`,
        transform: 'rotate(-90 64 64)',
      }),
      svg('text', { x: 64, y: 62, 'text-anchor': 'middle', class: 'gauge-number' }, formatNumber(usage.credits_used)),
      svg(
        'text',
        { x: 64, y: 82, 'text-anchor': 'middle', class: 'gauge-caption' },
        `of ${formatNumber(usage.credits_limit)}`,
      ),
    ),
    h('figcaption', { id: 'gauge-caption' }, caption),
  );
}

/**
 * Stacked bars, one per day of the month, one colour per operation; the same numbers as a table below. Drawn at the
 * width the page gives it (redrawn when that changes), so that its labels keep their size on any screen.
 */
function dailyChart(month: string, rows: Usage['by_day'], environment: Environment): Node {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const days = new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
  const operations = [...new Set(rows.map((d) => d.operation))].sort();
  const perDay = new Map<number, Map<string, number>>();
  for (const row of rows) {
    const day = Number(row.day.slice(8, 10));
    const ops = perDay.get(day) ?? new Map<string, number>();
    ops.set(row.operation, (ops.get(row.operation) ?? 0) + row.credits);
    perDay.set(day, ops);
  }
  const totals = [...perDay.values()].map((ops) => [...ops.values()].reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const niceMax = niceCeil(max);
  const summary =
    rows.length === 0
      ? `No ${environment} credits used in ${formatMonth(month)}.`
      : `${environment === 'live' ? 'Live' : 'Test'} credits per day in ${formatMonth(month)}: at most ${formatNumber(
          max,
        )} in a day; ${operations.join(', ')}.`;

  const draw = (width: number): SVGElement => {
    const height = 220;
    const left = 44;
    const right = 8;
    const bottom = 26;
    const top = 10;
    const plotH = height - bottom - top;
    const slot = (width - left - right) / days;
    const titleId = uid('chart');
    const bars: SVGElement[] = [];
    for (let day = 1; day <= days; day++) {
      let y = height - bottom;
      for (const op of operations) {
        const value = perDay.get(day)?.get(op) ?? 0;
        if (value <= 0) continue;
        const barH = Math.max(1, (value / niceMax) * plotH);
        y -= barH;
        const credits = value === 1 ? 'credit' : 'credits';
        const label = `${month}-${String(day).padStart(2, '0')}: ${formatNumber(value)} ${environment} ${credits}, ${op}`;
        bars.push(
          svg(
            'rect',
            {
              x: (left + (day - 1) * slot + slot * 0.15).toFixed(1),
              y: y.toFixed(1),
              width: (slot * 0.7).toFixed(1),
              height: barH.toFixed(1),
              fill: colorOf(op),
            },
            svg('title', {}, label),
          ),
        );
      }
    }
    // Credits are counted whole: the middle line only where it falls on a whole number.
    const ticks = (Number.isInteger(niceMax / 2) ? [0, niceMax / 2, niceMax] : [0, niceMax]).map((value) => {
      const y = height - bottom - (value / niceMax) * plotH;
      return [
        svg('line', { x1: left, x2: width - right, y1: y, y2: y, class: 'grid-line' }),
        svg('text', { x: left - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, formatNumber(value)),
      ];
    });
    const dayLabels = [1, 8, 15, 22, days].map((day) =>
      svg(
        'text',
        { x: (left + (day - 0.5) * slot).toFixed(1), y: height - 7, 'text-anchor': 'middle', class: 'axis' },
        String(day),
      ),
    );
    return svg(
      'svg',
      { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-labelledby': titleId },
      svg('title', { id: titleId }, summary),
      ticks,
      bars,
      dayLabels,
    );
  };

  const canvas = h('div', { class: 'chart-canvas' });
  let drawnAt = 0;
  const redraw = () => {
    const width = Math.max(240, Math.floor(canvas.clientWidth));
    if (width === drawnAt) return;
    drawnAt = width;
    canvas.replaceChildren(draw(width));
  };
  canvas.append(draw(640));
  new ResizeObserver(redraw).observe(canvas);

  return h(
    'figure',
    { class: 'chart', 'data-environment': environment },
    canvas,
    h(
      'figcaption',
      {},
      operations.length
        ? h(
            'ul',
            { class: 'legend' },
            operations.map((op) => h('li', {}, h('span', { class: `swatch swatch-${op}`, 'aria-hidden': 'true' }), op)),
          )
        : h('p', {}, summary),
    ),
    rows.length
      ? h(
          'details',
          {},
          h('summary', {}, 'Show the numbers as a table'),
          table(
            `${environment} credits per day by operation`,
            ['Day', 'Operation', `${environment === 'live' ? 'Live' : 'Test'} credits`, 'Requests'],
            rows.map((d) => [d.day, d.operation, formatNumber(d.credits), formatNumber(d.requests)]),
            {
              footer: [
                'Total',
                '',
                h(
                  'span',
                  { 'data-total': `${environment}-credits` },
                  formatNumber(rows.reduce((sum, d) => sum + d.credits, 0)),
                ),
                h(
                  'span',
                  { 'data-total': `${environment}-requests` },
                  formatNumber(rows.reduce((sum, d) => sum + d.requests, 0)),
                ),
              ],
            },
          ),
        )
      : null,
  );
}

function niceCeil(value: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}
