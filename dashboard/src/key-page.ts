import { type ApiKey, type AuditLogPage, type Organization, type RequestLogPage, type Usage, api } from './api.js';
import { budgetCell } from './budget-cell.js';
import { limitText } from './budget-meter.js';
import { type Context, navLink } from './context.js';
import { fact, formatMonth, formatNumber, h, preciseTimeEl, table, timeEl } from './dom.js';
import { confirmRevoke } from './keys-page.js';
import { canManage, listProjects } from './org-pages.js';
import { renameCell } from './rename-cell.js';

const RECENT = 10;

/**
 * One key: what it is and may do, this month's usage against its own monthly credit limit and its latest requests
 * (from the key listing, the usage report and the request log), with rename, the limit and revoke for owners and
 * admins.
 */
export async function keyPage(ctx: Context, keyId: string): Promise<Node> {
  const org = ctx.org!;
  const keys = (await api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`)).keys;
  const key = keys.find((k) => k.id === keyId);
  const back = navLink(`/orgs/${org.id}/keys`, '← All API keys', { class: 'back-link' });
  if (!key)
    return h(
      'section',
      { class: 'card narrow' },
      h('h1', {}, 'Key not found'),
      h('p', {}, `${org.name} has no such key.`),
      back,
    );
  const [projects, usage, log, revokedBy] = await Promise.all([
    listProjects(org.id),
    api<Usage>('GET', `/orgs/${org.id}/usage`),
    api<RequestLogPage>('GET', `/orgs/${org.id}/requests?key_id=${key.id}&limit=${RECENT}`),
    whoRevoked(org, key),
  ]);
  const reload = (message: string) => {
    ctx.navigate(`/orgs/${org.id}/keys/${key.id}`, { replace: true });
    ctx.flash(message);
  };
  const project = projects.find((p) => p.id === key.project_id);
  const used = usage.by_key.filter((u) => u.key_id === key.id);
  const credits = used.reduce((sum, u) => sum + u.credits, 0);
  const requests = used.reduce((sum, u) => sum + u.requests, 0);
  const manage = canManage(org) && key.status === 'active';
  return h(
    'div',
    {},
    back,
    h('h1', {}, `API key “${key.name}”`),
    h(
      'dl',
      { class: 'facts', id: 'key-facts' },
      fact(
        'Name',
        renameCell({
          name: key.name,
          what: key.name,
          canRename: manage,
          save: async (name) => {
            await api('PATCH', `/orgs/${org.id}/api-keys/${key.id}`, { name });
            reload(`Key renamed to “${name}”.`);
          },
        }),
      ),
      fact('Prefix', h('code', { class: 'prefix' }, `${key.prefix}…`)),
      fact('Environment', h('span', { class: `badge env-${key.environment}` }, key.environment)),
      fact('Project', navLink(`/orgs/${org.id}/projects`, project?.name ?? key.project_id)),
      fact('Status', h('span', { class: `badge status-${key.status}` }, key.status)),
      fact('Scopes', key.scopes.join(', ')),
      fact('Depth', key.depth_limit === 'basic' ? 'basic only (advanced is refused)' : 'basic and advanced'),
      fact('Created', timeEl(key.created_at)),
      fact('Last used', timeEl(key.last_used_at)),
      key.revoked_at ? fact('Revoked', [timeEl(key.revoked_at), revokedBy ? ` by ${revokedBy}` : '']) : null,
    ),
    manage
      ? h(
          'p',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'button danger-outline',
              'aria-label': `Revoke ${key.name}`,
              onclick: () =>
                confirmRevoke(ctx, key, async (message) => reload(message ?? `Key “${key.name}” revoked.`)),
            },
            'Revoke',
          ),
        )
      : null,
    h('h2', {}, `Usage in ${formatMonth(usage.month)}`),
    h(
      'dl',
      { class: 'stats', id: 'key-usage' },
      stat(`${key.environment === 'live' ? 'Live' : 'Test'} credits`, formatNumber(credits), 'credits'),
      stat('Requests charged', formatNumber(requests), 'requests'),
    ),
    h(
      'p',
      { class: 'hint' },
      key.environment === 'live'
        ? 'Live credits count against the monthly allowance. '
        : 'Test credits are recorded, never counted against the allowance. ',
      navLink(`/orgs/${org.id}/ledger?key_id=${key.id}`, 'Ledger of this key'),
    ),
    h('h2', {}, 'Monthly credit limit'),
    h(
      'div',
      { id: 'key-budget' },
      budgetCell({
        used: credits,
        limit: key.monthly_credit_limit,
        what: key.name,
        canEdit: manage,
        save: async (limit) => {
          await api('PATCH', `/orgs/${org.id}/api-keys/${key.id}`, { monthly_credit_limit: limit });
          reload(
            limit === null
              ? `“${key.name}” has no monthly credit limit of its own now.`
              : `Monthly credit limit of “${key.name}” set to ${limitText(limit)}.`,
          );
        },
      }),
    ),
    h(
      'p',
      { class: 'hint' },
      key.environment === 'live'
        ? "It counts this key's live credits of the month; its project's limit and the monthly allowance bind too. "
        : "It counts this key's test credits of the month (test credits count against no other limit). ",
      'A call past a limit is refused with 402.',
    ),
    h('h2', {}, 'Recent requests'),
    table(
      'Recent requests of this key',
      ['Time (UTC)', 'Status', 'Operation', 'Query or URL', 'Latency', 'Credits'],
      log.requests.map((r) => [
        preciseTimeEl(r.occurred_at),
        h('span', { class: `badge status-code status-${String(r.status)[0]}xx` }, String(r.status)),
        r.operation,
        r.summary ? h('span', { class: 'summary-text' }, r.summary) : '—',
        `${formatNumber(Math.round(r.latency_ms))} ms`,
        r.credits === null ? '—' : formatNumber(r.credits),
      ]),
      { empty: 'No requests with this key yet.' },
    ),
    h('p', {}, navLink(`/orgs/${org.id}/requests?key_id=${key.id}`, 'All requests of this key')),
  );
}

function stat(label: string, value: string, name: string): Node {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', { 'data-figure': name }, value));
}

/** Who revoked the key, from the audit log (owners and admins read it; a plain member sees when only). */
async function whoRevoked(org: Organization, key: ApiKey): Promise<string | null> {
  if (!key.revoked_at || org.role === 'member') return null;
  const query = new URLSearchParams({ action: 'KeyRevoked', target_id: key.id, limit: '1' });
  const log = await api<AuditLogPage>('GET', `/orgs/${org.id}/audit-log?${query}`).catch(() => null);
  const actor = log?.entries[0]?.actor;
  return actor ? (actor.email ?? actor.id) : null;
}
