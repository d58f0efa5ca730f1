import {
  type ApiKey,
  LOGGED_OPERATIONS,
  type LoggedRequest,
  type Project,
  type RequestLogPage,
  api,
  download,
} from './api.js';
import { type Context, navLink } from './context.js';
import { cursorPager } from './cursor-pager.js';
import { field, formatNumber, h, preciseTimeEl, table, uid } from './dom.js';
import { listProjects } from './org-pages.js';

const FILTERS = ['status', 'operation', 'project_id', 'key_id', 'environment', 'start_date', 'end_date'] as const;
const STATUS_CLASSES: [string, string][] = [
  ['2xx', 'Succeeded (2xx)'],
  ['4xx', 'Refused (4xx)'],
  ['5xx', 'Failed (5xx)'],
  ['401', '401 key missing or revoked'],
  ['402', '402 credits exhausted'],
  ['403', '403 scope or depth'],
  ['429', '429 rate limited'],
];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The request log: recent data-plane calls, refused ones included, filtered and paged by the URL's query. */
export async function requestsPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const filters = new URLSearchParams();
  for (const name of FILTERS) {
    const value = ctx.query.get(name);
    if (value && (!name.endsWith('_date') || DAY.test(value))) filters.set(name, value);
  }
  const cursor = ctx.query.get('cursor');
  const previous = ctx.query.getAll('prev');
  const query = new URLSearchParams(filters);
  if (cursor) query.set('cursor', cursor);
  const [page, keys, projects] = await Promise.all([
    api<RequestLogPage>('GET', `/orgs/${org.id}/requests?${query}`),
    api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`).then((r) => r.keys),
    listProjects(org.id),
  ]);
  const go = (params: URLSearchParams) => ctx.navigate(`/orgs/${org.id}/requests${params.size ? `?${params}` : ''}`);
  const exportStatus = h('p', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });

  const nav = cursorPager('Request log pages', filters, cursor, previous, page.next_cursor, go);

  const exportCsv = async () => {
    exportStatus.textContent = 'Preparing the CSV…';
    try {
      const name = await download(`/orgs/${org.id}/requests?${filters}`, 'text/csv', 'requests.csv');
      exportStatus.textContent = `Downloaded ${name}.`;
    } catch (e) {
      exportStatus.textContent = (e as Error).message;
    }
  };

  return h(
    'div',
    {},
    h('h1', {}, `Requests of ${org.name}`),
    h(
      'p',
      { class: 'lead' },
      `Every call made with this organization's keys, refused ones included, newest first. Kept ${formatNumber(
        page.retention_days,
      )} days. Times are UTC, the instant each call arrived (its charge in the ledger has the same time). Calls with
      an unknown key belong to no organization and are not listed.`,
    ),
    filterForm(filters, keys, projects, go),
    page.requests.length > 0
      ? h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', class: 'button secondary', onclick: exportCsv }, 'Export CSV'),
          exportStatus,
        )
      : null,
    table(
      'Recent requests',
      ['Time (UTC)', 'Status', 'Operation', 'Query or URL', 'Key', 'Request', 'Latency', 'Credits'],
      page.requests.map((r) => [
        preciseTimeEl(r.occurred_at),
        statusCell(r),
        r.operation,
        r.summary ? h('span', { class: 'summary-text' }, r.summary) : '—',
        h(
          'span',
          { class: 'key-cell' },
          r.key_name ?? '',
          h('code', { class: 'prefix' }, `${r.key_prefix ?? ''}…`),
          h('small', {}, r.key_environment),
        ),
        requestLink(org.id, r.request_id),
        `${formatNumber(Math.round(r.latency_ms))} ms`,
        r.credits === null ? '—' : formatNumber(r.credits),
      ]),
      { empty: filters.size ? 'No requests match these filters.' : 'No requests yet.' },
    ),
    nav,
  );
}

/** The status, and for a refused or failed call the reason it was given. */
export function statusCell(r: LoggedRequest): Node {
  return h(
    'span',
    { class: 'status-cell' },
    h('span', { class: `badge status-code status-${String(r.status)[0]}xx` }, String(r.status)),
    r.error ? h('small', { class: 'refusal' }, r.error) : null,
  );
}

/** A call's request id, shortened, linking to its detail (its charges in the ledger). */
export function requestLink(orgId: string, requestId: string): Node {
  const short = requestId.length > 13 ? `${requestId.slice(0, 8)}…` : requestId;
  return navLink(
    `/orgs/${orgId}/requests/${encodeURIComponent(requestId)}`,
    h('code', { class: 'request-id' }, short),
    {
      title: requestId,
      'aria-label': `Request ${requestId}`,
    },
  );
}

function filterForm(
  filters: URLSearchParams,
  keys: ApiKey[],
  projects: Project[],
  go: (params: URLSearchParams) => void,
): HTMLFormElement {
  const select = (name: string, all: string, options: [string, string][]) =>
    h(
      'select',
      { name, id: uid(name) },
      h('option', { value: '' }, all),
      options.map(([value, label]) => h('option', { value, selected: filters.get(name) === value }, label)),
    );
  const day = (name: string) => h('input', { type: 'date', name, id: uid(name), value: filters.get(name) ?? '' });
  const controls: [string, HTMLInputElement | HTMLSelectElement][] = [
    ['Status', select('status', 'Any status', STATUS_CLASSES)],
    [
      'Operation',
      select(
        'operation',
        'All operations',
        LOGGED_OPERATIONS.map((o) => [o, o]),
      ),
    ],
    [
      'Project',
      select(
        'project_id',
        'All projects',
        projects.map((p) => [p.id, p.name]),
      ),
    ],
    [
      'Key',
      select(
        'key_id',
        'All keys',
        keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`]),
      ),
    ],
    [
      'Environment',
      select('environment', 'Live and test', [
        ['live', 'Live'],
        ['test', 'Test'],
      ]),
    ],
    ['From (UTC day)', day('start_date')],
    ['To (UTC day)', day('end_date')],
  ];
  return h(
    'form',
    {
      class: 'card filters-grid',
      'aria-label': 'Request filters',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const params = new URLSearchParams();
        for (const [, control] of controls) if (control.value) params.set(control.name, control.value);
        go(params);
      },
    },
    controls.map(([label, control]) => field(label, control)),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', class: 'button' }, 'Apply filters'),
      h('button', { type: 'button', class: 'button secondary', onclick: () => go(new URLSearchParams()) }, 'Clear'),
    ),
  );
}
