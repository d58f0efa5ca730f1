import { type ApiKey, LOGGED_OPERATIONS, type RequestLogPage, api } from './api.js';
import type { Context } from './context.js';
import { field, formatNumber, h, preciseTimeEl, table } from './dom.js';

const FILTERS = ['status', 'operation', 'key_id', 'environment'] as const;
const STATUS_CLASSES: [string, string][] = [
  ['2xx', 'Succeeded (2xx)'],
  ['4xx', 'Refused (4xx)'],
  ['5xx', 'Failed (5xx)'],
  ['401', '401 key missing or revoked'],
  ['402', '402 credits exhausted'],
  ['403', '403 scope or depth'],
  ['429', '429 rate limited'],
];

/** The request log: recent data-plane calls, refused ones included, filtered and paged by the URL's query. */
export async function requestsPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const filters = new URLSearchParams();
  for (const name of FILTERS) {
    const value = ctx.query.get(name);
    if (value) filters.set(name, value);
  }
  const cursor = ctx.query.get('cursor');
  const previous = ctx.query.getAll('prev');
  const query = new URLSearchParams(filters);
  if (cursor) query.set('cursor', cursor);
  const [page, keys] = await Promise.all([
    api<RequestLogPage>('GET', `/orgs/${org.id}/requests?${query}`),
    api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`).then((r) => r.keys),
  ]);
  const go = (params: URLSearchParams) => ctx.navigate(`/orgs/${org.id}/requests${params.size ? `?${params}` : ''}`);

  const nav = h('nav', { class: 'pager', 'aria-label': 'Request log pages' });
  if (cursor) {
    const back = new URLSearchParams(filters);
    const last = previous.at(-1);
    if (last) back.set('cursor', last);
    for (const p of previous.slice(0, -1)) back.append('prev', p);
    nav.append(h('button', { type: 'button', class: 'button secondary', onclick: () => go(back) }, '← Newer'));
  }
  if (page.next_cursor) {
    const next = new URLSearchParams(filters);
    next.set('cursor', page.next_cursor);
    for (const p of previous) next.append('prev', p);
    if (cursor) next.append('prev', cursor);
    nav.append(h('button', { type: 'button', class: 'button secondary', onclick: () => go(next) }, 'Older →'));
  }

  return h(
    'div',
    {},
    h('h1', {}, `Requests of ${org.name}`),
    h(
      'p',
      { class: 'lead' },
      `Every call made with this organization's keys, refused ones included, newest first. Kept ${formatNumber(
        page.retention_days,
      )} days. Calls with an unknown key belong to no organization and are not listed.`,
    ),
    filterForm(filters, keys, go),
    table(
      'Recent requests',
      ['Time (UTC)', 'Status', 'Operation', 'Query or URL', 'Key', 'Latency', 'Credits'],
      page.requests.map((r) => [
        preciseTimeEl(r.occurred_at),
        h('span', { class: `badge status-code status-${String(r.status)[0]}xx` }, String(r.status)),
        r.operation,
        r.summary ? h('span', { class: 'summary-text' }, r.summary) : '—',
        [r.key_name ?? '', ' ', h('code', { class: 'prefix' }, `${r.key_prefix ?? ''}…`), ` (${r.key_environment})`],
        `${formatNumber(Math.round(r.latency_ms))} ms`,
        r.credits === null ? '—' : formatNumber(r.credits),
      ]),
      { empty: filters.size ? 'No requests match these filters.' : 'No requests yet.' },
    ),
    nav,
  );
}

function filterForm(filters: URLSearchParams, keys: ApiKey[], go: (params: URLSearchParams) => void): HTMLFormElement {
  const select = (name: string, all: string, options: [string, string][]) =>
    h(
      'select',
      { name },
      h('option', { value: '' }, all),
      options.map(([value, label]) => h('option', { value, selected: filters.get(name) === value }, label)),
    );
  const controls = [
    select('status', 'Any status', STATUS_CLASSES),
    select(
      'operation',
      'All operations',
      LOGGED_OPERATIONS.map((o) => [o, o]),
    ),
    select(
      'key_id',
      'All keys',
      keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`]),
    ),
    select('environment', 'Live and test', [
      ['live', 'Live'],
      ['test', 'Test'],
    ]),
  ];
  const labels = ['Status', 'Operation', 'Key', 'Environment'];
  return h(
    'form',
    {
      class: 'card filters-grid',
      'aria-label': 'Request filters',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const params = new URLSearchParams();
        for (const control of controls) if (control.value) params.set(control.name, control.value);
        go(params);
      },
    },
    controls.map((control, i) => field(labels[i]!, control)),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', class: 'button' }, 'Apply filters'),
      h('button', { type: 'button', class: 'button secondary', onclick: () => go(new URLSearchParams()) }, 'Clear'),
    ),
  );
}
