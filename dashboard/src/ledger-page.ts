import { type ApiKey, type LedgerEntry, OPERATIONS, type Project, api, download } from './api.js';
import type { Context } from './context.js';
import { field, formatNumber, h, table, timeEl } from './dom.js';
import { listProjects } from './org-pages.js';

const PAGE_SIZE = 25;
const FILTERS = ['month', 'project_id', 'key_id', 'operation'] as const;

/** The ledger: one row per charge, filtered and paged by the URL's query (so a view can be bookmarked). */
export async function ledgerPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const filters = new URLSearchParams();
  for (const name of FILTERS) {
    const value = ctx.query.get(name);
    if (value) filters.set(name, value);
  }
  const cursor = ctx.query.get('cursor');
  const previous = ctx.query.getAll('prev');
  const query = new URLSearchParams(filters);
  query.set('limit', String(PAGE_SIZE));
  if (cursor) query.set('cursor', cursor);
  const [page, projects, keys] = await Promise.all([
    api<{ entries: LedgerEntry[]; next_cursor: string | null }>('GET', `/orgs/${org.id}/ledger?${query}`),
    listProjects(org.id),
    api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`).then((r) => r.keys),
  ]);
  const go = (params: URLSearchParams) => ctx.navigate(`/orgs/${org.id}/ledger${params.size ? `?${params}` : ''}`);
  const exportStatus = h('p', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });

  const nav = h('nav', { class: 'pager', 'aria-label': 'Ledger pages' });
  if (cursor) {
    const back = new URLSearchParams(filters);
    const before = previous.slice(0, -1);
    const last = previous.at(-1);
    if (last) back.set('cursor', last);
    for (const p of before) back.append('prev', p);
    nav.append(h('button', { type: 'button', class: 'button secondary', onclick: () => go(back) }, '← Previous page'));
  }
  if (page.next_cursor) {
    const next = new URLSearchParams(filters);
    next.set('cursor', page.next_cursor);
    for (const p of previous) next.append('prev', p);
    if (cursor) next.append('prev', cursor);
    nav.append(h('button', { type: 'button', class: 'button secondary', onclick: () => go(next) }, 'Next page →'));
  }

  return h(
    'div',
    {},
    h('h1', {}, `Ledger of ${org.name}`),
    h('p', { class: 'lead' }, 'Every charge, oldest first, exactly as billed.'),
    filterForm(filters, projects, keys, go),
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          type: 'button',
          class: 'button secondary',
          onclick: async () => {
            exportStatus.textContent = 'Preparing the CSV…';
            try {
              const name = await download(`/orgs/${org.id}/ledger?${filters}`, 'text/csv', 'ledger.csv');
              exportStatus.textContent = `Downloaded ${name}.`;
            } catch (e) {
              exportStatus.textContent = (e as Error).message;
            }
          },
        },
        'Export CSV',
      ),
      exportStatus,
    ),
    table(
      'Ledger entries',
      ['Time', 'Operation', 'Credits', 'Project', 'Key', 'Environment', 'Request id'],
      page.entries.map((e) => [
        timeEl(e.occurred_at),
        e.depth ? `${e.operation} (${e.depth})` : e.operation,
        formatNumber(Number(e.credits)),
        e.project_name ?? e.project_id,
        [e.key_name ?? '', ' ', h('code', {}, `${e.key_prefix ?? ''}…`)],
        e.key_environment,
        h('code', { class: 'request-id' }, e.request_id),
      ]),
      { empty: filters.size ? 'No charges match these filters.' : 'No charges yet.' },
    ),
    nav,
  );
}

function filterForm(
  filters: URLSearchParams,
  projects: Project[],
  keys: ApiKey[],
  go: (params: URLSearchParams) => void,
): HTMLFormElement {
  const month = h('input', { type: 'month', name: 'month', value: filters.get('month') ?? '' });
  const select = (name: string, all: string, options: [string, string][]) =>
    h(
      'select',
      { name },
      h('option', { value: '' }, all),
      options.map(([value, label]) => h('option', { value, selected: filters.get(name) === value }, label)),
    );
  const project = select(
    'project_id',
    'All projects',
    projects.map((p) => [p.id, p.name]),
  );
  const key = select(
    'key_id',
    'All keys',
    keys.map((k) => [k.id, `${k.name} (${k.prefix}…)`]),
  );
  const operation = select(
    'operation',
    'All operations',
    OPERATIONS.map((o) => [o, o]),
  );
  return h(
    'form',
    {
      class: 'card filters-grid',
      'aria-label': 'Ledger filters',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const params = new URLSearchParams();
        for (const control of [month, project, key, operation])
          if (control.value) params.set(control.name, control.value);
        go(params);
      },
    },
    field('Month', month),
    field('Project', project),
    field('Key', key),
    field('Operation', operation),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', class: 'button' }, 'Apply filters'),
      h('button', { type: 'button', class: 'button secondary', onclick: () => go(new URLSearchParams()) }, 'Clear'),
    ),
  );
}
