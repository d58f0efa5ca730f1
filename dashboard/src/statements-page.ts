import { type ApiKey, type Statement, api, download } from './api.js';
import { type Context, navLink } from './context.js';
import { formatMonth, formatNumber, h, preciseTimeEl, table } from './dom.js';
import { listProjects } from './org-pages.js';

const credits = (n: number) => `${formatNumber(n)} ${n === 1 ? 'credit' : 'credits'}`;
const charges = (n: number) => `${formatNumber(n)} ${n === 1 ? 'charge' : 'charges'}`;
const envBadge = (environment: string) => h('span', { class: `badge env-${environment}` }, environment);

/** A button that downloads a statement route's CSV, saying how it went in `status`. */
function csvButton(path: string, label: string, fallbackName: string, status: HTMLElement): Node {
  return h(
    'button',
    {
      type: 'button',
      class: 'button secondary',
      onclick: async () => {
        status.textContent = 'Preparing the CSV…';
        try {
          status.textContent = `Downloaded ${await download(path, 'text/csv', fallbackName)}.`;
        } catch (e) {
          status.textContent = (e as Error).message;
        }
      },
    },
    label,
  );
}

/** The organization's closed months, newest first; each links to its statement. */
export async function statementsPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const { statements } = await api<{ statements: Statement[] }>('GET', `/orgs/${org.id}/statements`);
  const status = h('p', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });
  return h(
    'div',
    {},
    h('h1', {}, `Statements of ${org.name}`),
    h(
      'p',
      { class: 'lead' },
      'A month closes into a statement a few days after it ends, and never changes after that: a late charge or a ' +
        'correction is an adjustment in the month that is open.',
    ),
    statements.length > 0
      ? h(
          'div',
          { class: 'row' },
          csvButton(`/orgs/${org.id}/statements`, 'Export CSV', 'statements.csv', status),
          status,
        )
      : null,
    table(
      'Statements',
      ['Month', 'Billable credits', 'Live charges', 'Test credits (not billed)', 'Adjustments', 'Closed (UTC)'],
      statements.map((s) => [
        navLink(`/orgs/${org.id}/statements/${s.month}`, formatMonth(s.month)),
        h('span', { 'data-total': 'billable' }, credits(s.billable_credits)),
        `${credits(s.totals.live.credits)} in ${charges(s.totals.live.charges)}`,
        credits(s.totals.test.credits),
        s.adjustments.length === 0
          ? 'none'
          : `${formatNumber(s.adjustments.length)}: ${credits(s.adjustments_total.live)}`,
        preciseTimeEl(s.issued_at),
      ]),
      { empty: 'No month is closed yet.' },
    ),
  );
}

/** One closed month's statement: totals, lines by project, key and operation, adjustments, and its CSV. */
export async function statementPage(ctx: Context, month: string): Promise<Node> {
  const org = ctx.org!;
  const [s, projects, keys] = await Promise.all([
    api<Statement>('GET', `/orgs/${org.id}/statements/${encodeURIComponent(month)}`),
    listProjects(org.id),
    api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`).then((r) => r.keys),
  ]);
  const projectName = (id: string) => projects.find((p) => p.id === id)?.name ?? id;
  const key = (id: string) => {
    const found = keys.find((k) => k.id === id);
    return found
      ? h('span', {}, found.name, ' ', h('code', { class: 'prefix' }, `${found.prefix}…`))
      : h('code', {}, id);
  };
  const status = h('p', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });
  const amount = (l: { credits: number; charges: number }) => [formatNumber(l.charges), formatNumber(l.credits)];
  return h(
    'div',
    {},
    h('p', {}, navLink(`/orgs/${org.id}/statements`, '← All statements')),
    h('h1', {}, `Statement for ${formatMonth(s.month)}`),
    h(
      'p',
      { class: 'totals', id: 'statement-totals' },
      'Billable: ',
      h('strong', { 'data-total': 'billable' }, credits(s.billable_credits)),
      ` (live: ${credits(s.totals.live.credits)} in ${charges(s.totals.live.charges)}`,
      s.adjustments.length > 0 ? `, adjustments ${credits(s.adjustments_total.live)}` : '',
      `). Test keys: ${credits(s.totals.test.credits)} in ${charges(s.totals.test.charges)} (not billed). Closed `,
      preciseTimeEl(s.issued_at),
      '.',
    ),
    h(
      'div',
      { class: 'row' },
      csvButton(`/orgs/${org.id}/statements/${s.month}`, 'Download CSV', `statement-${s.month}.csv`, status),
      status,
    ),
    h('h2', {}, 'By project'),
    table(
      'By project',
      ['Project', 'Environment', 'Charges', 'Credits'],
      s.by_project.map((l) => [projectName(l.project_id), envBadge(l.environment), ...amount(l)]),
      { empty: 'No charges.' },
    ),
    h('h2', {}, 'By key'),
    table(
      'By key',
      ['Key', 'Project', 'Environment', 'Charges', 'Credits'],
      s.by_key.map((l) => [key(l.key_id), projectName(l.project_id), envBadge(l.environment), ...amount(l)]),
      { empty: 'No charges.' },
    ),
    h('h2', {}, 'By operation'),
    table(
      'By operation',
      ['Operation', 'Environment', 'Charges', 'Credits'],
      s.by_operation.map((l) => [l.operation, envBadge(l.environment), ...amount(l)]),
      { empty: 'No charges.' },
    ),
    h('h2', {}, 'Adjustments'),
    table(
      'Adjustments',
      ['Kind', 'Corrects', 'Credits', 'Reason', 'By', 'Recorded (UTC)'],
      s.adjustments.map((a) => [
        a.kind === 'late_charge' ? 'Late charge' : 'Correction',
        formatMonth(a.corrects_month),
        formatNumber(a.credits),
        a.reason,
        `${a.actor.type} ${a.actor.id}`,
        preciseTimeEl(a.occurred_at),
      ]),
      { empty: 'No adjustments in this month.' },
    ),
  );
}
