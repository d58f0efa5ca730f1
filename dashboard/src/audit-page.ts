import { type AuditEntry, type AuditLogPage, AUDITED_ACTIONS, api, download } from './api.js';
import { type Context, navLink } from './context.js';
import { cursorPager } from './cursor-pager.js';
import { field, h, preciseTimeEl, table } from './dom.js';

const FILTERS = ['action', 'actor', 'start_date', 'end_date'] as const;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The audit log (owners and admins): who did what to the organization, its members, projects and keys, and when. */
export async function auditPage(ctx: Context): Promise<Node> {
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
  const page = await api<AuditLogPage>('GET', `/orgs/${org.id}/audit-log?${query}`);
  const go = (params: URLSearchParams) => ctx.navigate(`/orgs/${org.id}/audit${params.size ? `?${params}` : ''}`);
  const exportStatus = h('p', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });

  const nav = cursorPager('Audit log pages', filters, cursor, previous, page.next_cursor, go);
  const exportCsv = async () => {
    exportStatus.textContent = 'Preparing the CSV…';
    try {
      const name = await download(`/orgs/${org.id}/audit-log?${filters}`, 'text/csv', 'audit-log.csv');
      exportStatus.textContent = `Downloaded ${name}.`;
    } catch (e) {
      exportStatus.textContent = (e as Error).message;
    }
  };

  return h(
    'div',
    {},
    h('h1', {}, `Audit log of ${org.name}`),
    h(
      'p',
      { class: 'lead' },
      'Who changed what, newest first: the organization and its plan, members, projects, keys and budgets. Times are UTC.',
    ),
    filterForm(filters, go),
    page.entries.length > 0
      ? h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', class: 'button secondary', onclick: exportCsv }, 'Export CSV'),
          exportStatus,
        )
      : null,
    table(
      'Audit log',
      ['Time (UTC)', 'Who', 'What', 'On'],
      page.entries.map((e) => [preciseTimeEl(e.occurred_at), actorOf(e), e.summary, targetOf(org.id, e)]),
      { empty: filters.size ? 'No actions match these filters.' : 'No actions yet.' },
    ),
    nav,
  );
}

function actorOf(e: AuditEntry): Node {
  const who = e.actor.email ?? e.actor.id;
  const role = e.actor.type === 'user' ? null : h('small', { class: 'actor-type' }, e.actor.type.replace('_', ' '));
  return h('span', { class: 'actor' }, who, role);
}

function targetOf(orgId: string, e: AuditEntry): Node {
  const label = e.target.name ?? e.target.id;
  if (e.target.kind === 'key') return navLink(`/orgs/${orgId}/keys/${e.target.id}`, `key ${label}`);
  return h('span', {}, `${e.target.kind} ${label}`);
}

function filterForm(filters: URLSearchParams, go: (params: URLSearchParams) => void): HTMLFormElement {
  const action = h(
    'select',
    { name: 'action' },
    h('option', { value: '' }, 'Every action'),
    AUDITED_ACTIONS.map((a) => h('option', { value: a, selected: filters.get('action') === a }, a)),
  );
  const actor = h('input', {
    type: 'text',
    name: 'actor',
    value: filters.get('actor') ?? '',
    placeholder: 'an address, or an operator',
    autocomplete: 'off',
  });
  const day = (name: string) => h('input', { type: 'date', name, value: filters.get(name) ?? '' });
  const controls: [string, HTMLInputElement | HTMLSelectElement][] = [
    ['Action', action],
    ['Who', actor],
    ['From (UTC day)', day('start_date')],
    ['To (UTC day)', day('end_date')],
  ];
  return h(
    'form',
    {
      class: 'card filters-grid',
      'aria-label': 'Audit log filters',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const params = new URLSearchParams();
        for (const [, control] of controls) if (control.value.trim()) params.set(control.name, control.value.trim());
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
