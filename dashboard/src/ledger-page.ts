import { type ApiKey, type LedgerPage, type LedgerTotals, OPERATIONS, type Project, api, download } from './api.js';
import type { Context } from './context.js';
import { field, formatMonth, formatNumber, h, preciseTimeEl, table, uid } from './dom.js';
import { listProjects } from './org-pages.js';
import { thisMonth } from './usage-page.js';
import { requestLink } from './requests-page.js';
import { cursorPager } from './cursor-pager.js';
import { navLink } from './context.js';

const PAGE_SIZES = ['25', '50', '100'];
const FILTERS = ['month', 'project_id', 'key_id', 'operation', 'environment', 'order', 'limit', 'request_id'] as const;
/** The month filter's value for every month (the API's). */
const ALL_MONTHS = 'all';

/**
 * The ledger: one row per charge, filtered and paged by the URL's query (so a view can be bookmarked). It opens on
 * the current month, as Usage does; "Every month" shows them all.
 */
export async function ledgerPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const filters = new URLSearchParams();
  for (const name of FILTERS) {
    const value = ctx.query.get(name);
    if (value) filters.set(name, value);
  }
  if (!PAGE_SIZES.includes(filters.get('limit') ?? '')) filters.delete('limit');
  const requested = filters.get('month') ?? '';
  const month = requested === ALL_MONTHS || /^\d{4}-\d{2}$/.test(requested) ? requested : thisMonth();
  const pageSize = Number(filters.get('limit') ?? PAGE_SIZES[0]);
  const cursor = ctx.query.get('cursor');
  const previous = ctx.query.getAll('prev');
  const query = new URLSearchParams(filters);
  query.set('month', month);
  query.set('limit', String(pageSize));
  if (cursor) query.set('cursor', cursor);
  const [page, projects, keys] = await Promise.all([
    api<LedgerPage>('GET', `/orgs/${org.id}/ledger?${query}`),
    listProjects(org.id),
    api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`).then((r) => r.keys),
  ]);
  const go = (params: URLSearchParams) => ctx.navigate(`/orgs/${org.id}/ledger${params.size ? `?${params}` : ''}`);
  const exportStatus = h('p', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });

  const entries = page.totals.live.entries + page.totals.test.entries;
  const pageNumber = cursor ? previous.length + 2 : 1;
  const pages = Math.max(1, Math.ceil(entries / pageSize));
  // Above the table and below it, so that a long page need not be scrolled through to turn it. An empty view has no
  // pages to number and nothing to export.
  const pager = (label: string, numberId?: string) =>
    cursorPager(label, filters, cursor, previous, page.next_cursor, go, {
      back: '← Previous page',
      forward: 'Next page →',
      status:
        entries > 0
          ? h(
              'span',
              { id: numberId, class: 'page-number' },
              `Page ${formatNumber(pageNumber)} of ${formatNumber(pages)}`,
            )
          : null,
    });

  return h(
    'div',
    {},
    h('h1', {}, `Ledger of ${org.name}`),
    h(
      'p',
      { class: 'lead' },
      'Every charge exactly as billed, with its price explained. Times are UTC, to the millisecond.',
    ),
    filterForm(filters, month, projects, keys, go),
    oneRequest(org.id, filters),
    totalsLine(page.totals, month),
    h(
      'div',
      { class: 'row' },
      exportButton('Export CSV for finance', 'finance', 'Readable columns: names, the price in words.'),
      exportButton('Export audit CSV', 'audit', 'Every stored column, event-store positions included.'),
      exportStatus,
    ),
    pager('Ledger pages', 'page-number'),
    table(
      'Ledger entries',
      ['Time (UTC)', 'Operation', 'Credits', 'Price', 'Project', 'Key', 'Environment', 'Request id'],
      page.entries.map((e) => [
        preciseTimeEl(e.occurred_at),
        h(
          'span',
          {},
          e.depth ? `${e.operation} (${e.depth})` : e.operation,
          e.corrects_month
            ? h('small', { class: 'late-charge' }, ` late charge of ${formatMonth(e.corrects_month)}`)
            : null,
        ),
        formatNumber(Number(e.credits)),
        priceCell(e.price_explanation),
        // One element per cell: on a phone each cell is a grid of its label and one value.
        h('span', {}, e.project_name ?? e.project_id, renamedTo(e.project_name_now)),
        h(
          'span',
          {},
          e.key_name ?? '',
          ' ',
          h('code', { class: 'prefix' }, `${e.key_prefix ?? ''}…`),
          renamedTo(e.key_name_now),
        ),
        h('span', { class: `badge env-${e.key_environment}` }, e.key_environment),
        requestLink(org.id, requestOf(e.request_id)),
      ]),
      { empty: emptyText(filters, month), className: 'ledger-table' },
    ),
    pager('Ledger pages, at the bottom'),
  );

  function exportButton(label: string, format: 'finance' | 'audit', title: string): Node {
    return h(
      'button',
      {
        type: 'button',
        class: 'button secondary',
        title: entries > 0 ? title : 'No charges match: nothing to export.',
        disabled: entries === 0,
        onclick: async () => {
          exportStatus.textContent = 'Preparing the CSV…';
          const params = new URLSearchParams(filters);
          params.set('month', month);
          params.delete('limit');
          params.set('format', format);
          try {
            const name = await download(`/orgs/${org.id}/ledger?${params}`, 'text/csv', `ledger-${format}.csv`);
            exportStatus.textContent = `Downloaded ${name}.`;
          } catch (e) {
            exportStatus.textContent = (e as Error).message;
          }
        },
      },
      label,
    );
  }
}

/**
 * The price in words, on one line (cut short with an ellipsis) until opened: a page of charges stays a row per
 * charge. Opening it (a click, Enter, or a tap) shows the whole explanation; a pointer's hover shows it too.
 */
function priceCell(explanation: string): Node {
  return h('details', { class: 'price' }, h('summary', { title: explanation }, explanation));
}

/** The call a charge belongs to: an MCP request's tool calls are charged as `<request id>:<n>`. */
const requestOf = (chargedAs: string) => chargedAs.replace(/:\d+$/, '');

/** Narrowed to one call's charges (from its page in the request log): say so, and the way back. */
function oneRequest(orgId: string, filters: URLSearchParams): Node | null {
  const requestId = filters.get('request_id');
  if (!requestId) return null;
  const all = new URLSearchParams(filters);
  all.delete('request_id');
  return h(
    'p',
    { class: 'notice', id: 'ledger-request' },
    'Showing the charges of request ',
    requestLink(orgId, requestId),
    '. ',
    navLink(`/orgs/${orgId}/ledger${all.size ? `?${all}` : ''}`, 'Show every charge'),
  );
}

/** The month shown, in words. */
const period = (month: string) => (month === ALL_MONTHS ? 'every month' : formatMonth(month));

/** The names as charged come first; today's name, when the key or project was renamed since, beside them. */
function renamedTo(now: string | null): Node | null {
  return now === null ? null : h('small', { class: 'renamed', title: `now: ${now}` }, `now: ${now}`);
}

function emptyText(filters: URLSearchParams, month: string): string {
  const others = [...filters.keys()].some((name) => name !== 'month' && name !== 'order' && name !== 'limit');
  return others ? `No charges in ${period(month)} match these filters.` : `No charges in ${period(month)}.`;
}

/** What the filters match across every page: live and test apart (only live credits are billed). */
function totalsLine(totals: LedgerTotals, month: string): Node {
  const charges = (n: number) => `${formatNumber(n)} ${n === 1 ? 'charge' : 'charges'}`;
  const credits = (n: number) => `${formatNumber(n)} ${n === 1 ? 'credit' : 'credits'}`;
  return h(
    'p',
    { class: 'totals', id: 'ledger-totals' },
    `${charges(totals.live.entries + totals.test.entries)} match in ${period(month)}: live `,
    h('span', { 'data-total': 'live-credits' }, credits(totals.live.credits)),
    ` in ${charges(totals.live.entries)}; test `,
    h('span', { 'data-total': 'test-credits' }, credits(totals.test.credits)),
    ` in ${charges(totals.test.entries)} (not billed).`,
  );
}

function filterForm(
  filters: URLSearchParams,
  shown: string,
  projects: Project[],
  keys: ApiKey[],
  go: (params: URLSearchParams) => void,
): HTMLFormElement {
  const everyMonth = shown === ALL_MONTHS;
  const month = h('input', {
    type: 'month',
    name: 'month',
    id: uid('month'),
    value: everyMonth ? '' : shown,
    max: thisMonth(),
    disabled: everyMonth,
  });
  const allMonths = h('input', {
    type: 'checkbox',
    id: uid('all-months'),
    checked: everyMonth,
    onchange: () => {
      month.disabled = allMonths.checked;
      if (!allMonths.checked && !month.value) month.value = thisMonth();
    },
  });
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
  const environment = select('environment', 'Live and test', [
    ['live', 'Live'],
    ['test', 'Test'],
  ]);
  const order = h(
    'select',
    { name: 'order' },
    h('option', { value: '' }, 'Newest first'),
    h('option', { value: 'asc', selected: filters.get('order') === 'asc' }, 'Oldest first'),
  );
  const limit = h(
    'select',
    { name: 'limit' },
    PAGE_SIZES.map((size, i) =>
      h('option', { value: i === 0 ? '' : size, selected: (filters.get('limit') ?? PAGE_SIZES[0]) === size }, size),
    ),
  );
  return h(
    'form',
    {
      class: 'card filters-grid',
      'aria-label': 'Ledger filters',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const params = new URLSearchParams();
        params.set('month', allMonths.checked ? ALL_MONTHS : month.value || thisMonth());
        for (const control of [project, key, operation, environment, order, limit])
          if (control.value) params.set(control.name, control.value);
        const requestId = filters.get('request_id');
        if (requestId) params.set('request_id', requestId);
        go(params);
      },
    },
    h(
      'div',
      { class: 'field' },
      h('label', { for: month.id }, 'Month'),
      month,
      h('label', { for: allMonths.id, class: 'choice' }, allMonths, ' Every month'),
    ),
    field('Project', project),
    field('Key', key),
    field('Operation', operation),
    field('Environment', environment),
    field('Order', order),
    field('Rows per page', limit),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'submit', class: 'button' }, 'Apply filters'),
      h('button', { type: 'button', class: 'button secondary', onclick: () => go(new URLSearchParams()) }, 'Clear'),
    ),
  );
}
