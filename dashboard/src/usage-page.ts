import { type Usage, api } from './api.js';
import type { Context } from './context.js';
import { field, formatNumber, h, svg, table, uid } from './dom.js';

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
      'div',
      { class: 'summary' },
      gauge(usage),
      h(
        'dl',
        { class: 'stats' },
        stat('Credits used', formatNumber(usage.credits_used), 'credits-used'),
        stat('Credits left', formatNumber(usage.credits_remaining)),
        stat('Monthly allowance', formatNumber(usage.credits_limit)),
        stat('Test-key credits (not counted)', formatNumber(usage.test_credits_used)),
        stat('Requests', formatNumber(usage.requests)),
        stat(
          'Rate limit',
          `${formatNumber(org.rate_limit_per_minute.live)}/min live · ${formatNumber(org.rate_limit_per_minute.test)}/min test`,
        ),
        stat('Plan', org.plan),
      ),
    ),
    h('h2', {}, 'Credits per day, by operation'),
    dailyChart(usage),
    h('h2', {}, 'By project'),
    table(
      'Credits by project',
      ['Project', 'Credits', 'Requests'],
      usage.by_project.map((p) => [p.name ?? p.project_id, formatNumber(p.credits), formatNumber(p.requests)]),
      { empty: 'No usage this month.' },
    ),
    h('h2', {}, 'By key'),
    table(
      'Credits by key',
      ['Key', 'Prefix', 'Environment', 'Credits', 'Requests'],
      usage.by_key.map((k) => [
        k.name ?? '—',
        h('code', {}, `${k.prefix ?? ''}…`),
        k.environment,
        formatNumber(k.credits),
        formatNumber(k.requests),
      ]),
      { empty: 'No usage this month.' },
    ),
    h('h2', {}, 'By operation'),
    table(
      'Credits by operation',
      ['Operation', 'Credits', 'Requests'],
      usage.by_operation.map((o) => [o.operation, formatNumber(o.credits), formatNumber(o.requests)]),
      { empty: 'No usage this month.' },
    ),
  );
}

function stat(label: string, value: string, id?: string): Node {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', id ? { id } : {}, value));
}

/** A ring: the share of the allowance used this month, with the numbers in words next to it. */
function gauge(usage: Usage): Node {
  const share = usage.credits_limit > 0 ? Math.min(1, usage.credits_used / usage.credits_limit) : 0;
  const percent = usage.credits_limit > 0 ? (usage.credits_used / usage.credits_limit) * 100 : 0;
  const r = 52;
  const circumference = 2 * Math.PI * r;
  const tone = share >= 0.9 ? 'critical' : share >= 0.75 ? 'high' : 'ok';
  const label = `${formatNumber(usage.credits_used)} of ${formatNumber(usage.credits_limit)} credits used (${formatNumber(
    Math.round(percent * 10) / 10,
  )}%)`;
  return h(
    'figure',
    { class: 'gauge' },
    svg(
      'svg',
      { viewBox: '0 0 128 128', width: 160, height: 160, role: 'img', 'aria-label': label },
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
    h('figcaption', { id: 'gauge-caption' }, label),
  );
}

/** Stacked bars, one per day of the month, one colour per operation; the same numbers as a table below. */
function dailyChart(usage: Usage): Node {
  const [year, month] = usage.month.split('-').map(Number) as [number, number];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const operations = [...new Set(usage.by_day.map((d) => d.operation))].sort();
  const perDay = new Map<number, Map<string, number>>();
  for (const row of usage.by_day) {
    const day = Number(row.day.slice(8, 10));
    const ops = perDay.get(day) ?? new Map<string, number>();
    ops.set(row.operation, (ops.get(row.operation) ?? 0) + row.credits);
    perDay.set(day, ops);
  }
  const totals = [...perDay.values()].map((ops) => [...ops.values()].reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const niceMax = niceCeil(max);
  const width = 640;
  const height = 220;
  const left = 40;
  const bottom = 24;
  const top = 10;
  const plotH = height - bottom - top;
  const slot = (width - left - 8) / days;
  const titleId = uid('chart');
  const bars: SVGElement[] = [];
  for (let day = 1; day <= days; day++) {
    let y = height - bottom;
    for (const op of operations) {
      const value = perDay.get(day)?.get(op) ?? 0;
      if (value <= 0) continue;
      const barH = Math.max(1, (value / niceMax) * plotH);
      y -= barH;
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
          svg('title', {}, `${usage.month}-${String(day).padStart(2, '0')}: ${formatNumber(value)} credits, ${op}`),
        ),
      );
    }
  }
  const ticks = [0, niceMax / 2, niceMax].map((value) => {
    const y = height - bottom - (value / niceMax) * plotH;
    return [
      svg('line', { x1: left, x2: width - 8, y1: y, y2: y, class: 'grid-line' }),
      svg('text', { x: left - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, formatNumber(value)),
    ];
  });
  const dayLabels = [1, 8, 15, 22, days].map((day) =>
    svg(
      'text',
      { x: (left + (day - 0.5) * slot).toFixed(1), y: height - 6, 'text-anchor': 'middle', class: 'axis' },
      String(day),
    ),
  );
  const summary =
    usage.by_day.length === 0
      ? `No credits used in ${usage.month}.`
      : `Credits per day in ${usage.month}: at most ${formatNumber(max)} in a day; ${operations.join(', ')}.`;
  return h(
    'figure',
    { class: 'chart' },
    svg(
      'svg',
      { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': titleId },
      svg('title', { id: titleId }, summary),
      ticks,
      bars,
      dayLabels,
    ),
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
    usage.by_day.length
      ? h(
          'details',
          {},
          h('summary', {}, 'Show the numbers as a table'),
          table(
            'Credits per day by operation',
            ['Day', 'Operation', 'Credits', 'Requests'],
            usage.by_day.map((d) => [d.day, d.operation, formatNumber(d.credits), formatNumber(d.requests)]),
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
