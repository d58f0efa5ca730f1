import { formatNumber, h, svg } from './dom.js';

/** A monthly credit limit in words: "500 credits a month", or "no limit of its own" (null). */
export function limitText(limit: number | null): string {
  return limit === null ? 'no limit of its own' : `${formatNumber(limit)} credits a month`;
}

/**
 * The credits used this month against a key's or a project's own monthly limit: "123 of 500 credits (24 %)" with a
 * bar (full once the limit is reached; a limit of 0 refuses every call), or the credits alone when it has no limit
 * of its own. The percentage is rounded down, so that 100 % means reached.
 */
export function budgetMeter(used: number, limit: number | null): HTMLElement {
  if (limit === null)
    return h(
      'div',
      { class: 'budget' },
      h(
        'p',
        { class: 'budget-text', 'data-figure': 'budget' },
        `${formatNumber(used)} credits used; no limit of its own`,
      ),
    );
  const share = limit > 0 ? Math.min(1, used / limit) : 1;
  const percent = limit > 0 ? Math.floor((used / limit) * 100) : 100;
  const tone = share >= 1 ? 'critical' : share >= 0.75 ? 'high' : 'ok';
  const text =
    limit === 0
      ? `${formatNumber(used)} of 0 credits: a limit of 0 refuses every call`
      : `${formatNumber(used)} of ${formatNumber(limit)} credits (${formatNumber(percent)} %)`;
  return h(
    'div',
    { class: 'budget' },
    h('p', { class: 'budget-text', 'data-figure': 'budget' }, text),
    // The words above say it all; the bar is for the eye only.
    svg(
      'svg',
      { class: 'budget-bar', viewBox: '0 0 100 6', preserveAspectRatio: 'none', 'aria-hidden': 'true' },
      // The usage gauge's track and tones, drawn straight.
      svg('line', { x1: 0, x2: 100, y1: 3, y2: 3, class: 'gauge-track', 'stroke-width': 6 }),
      share > 0
        ? svg('line', {
            x1: 0,
            x2: (share * 100).toFixed(2),
            y1: 3,
            y2: 3,
            class: `gauge-value gauge-${tone}`,
            'stroke-width': 6,
          })
        : null,
    ),
  );
}
