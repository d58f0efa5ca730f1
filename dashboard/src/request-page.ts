import { type RequestDetail, api } from './api.js';
import { type Context, navLink } from './context.js';
import { fact, formatNumber, h, preciseTimeEl, table } from './dom.js';
import { statusCell } from './requests-page.js';

/**
 * One call (/orgs/{org}/requests/{request_id}): how it was answered and why it was refused, from the request log,
 * and what the ledger charged for it, with a link to those charges in the ledger.
 */
export async function requestPage(ctx: Context, requestId: string): Promise<Node> {
  const org = ctx.org!;
  const detail = await api<RequestDetail>('GET', `/orgs/${org.id}/requests/${encodeURIComponent(requestId)}`);
  const ledgerLink = navLink(
    `/orgs/${org.id}/ledger?${new URLSearchParams({ month: 'all', request_id: requestId })}`,
    'See these charges in the ledger',
  );
  return h(
    'div',
    {},
    navLink(`/orgs/${org.id}/requests`, '← All requests', { class: 'back-link' }),
    h('h1', {}, 'Request ', h('code', { class: 'request-id' }, requestId)),
    detail.requests.length === 0
      ? h(
          'p',
          { class: 'empty' },
          `This call is no longer in the request log (it keeps calls ${formatNumber(detail.retention_days)} days); its charges are kept for good.`,
        )
      : detail.requests.map((r) =>
          h(
            'dl',
            { class: 'facts', id: 'request-facts' },
            fact('Time (UTC)', preciseTimeEl(r.occurred_at)),
            fact('Status', statusCell(r)),
            fact('Operation', r.depth ? `${r.operation} (${r.depth})` : r.operation),
            fact('Route', h('code', {}, `${r.method} ${r.path}`)),
            fact('Query or URL', r.summary ?? '—'),
            fact('Key', [
              navLink(`/orgs/${org.id}/keys/${r.key_id}`, r.key_name ?? r.key_id),
              ' ',
              h('code', { class: 'prefix' }, `${r.key_prefix ?? ''}…`),
              ` (${r.key_environment})`,
            ]),
            fact('Latency', `${formatNumber(Math.round(r.latency_ms))} ms`),
            fact('Credits', r.credits === null ? 'not charged' : formatNumber(r.credits)),
          ),
        ),
    h('h2', {}, 'Charges in the ledger'),
    table(
      'Charges of this request',
      ['Time (UTC)', 'Operation', 'Credits', 'Price', 'Charge id'],
      detail.charges.map((c) => [
        preciseTimeEl(c.occurred_at),
        c.depth ? `${c.operation} (${c.depth})` : c.operation,
        formatNumber(Number(c.credits)),
        h('span', { class: 'price' }, c.price_explanation),
        h('code', { class: 'request-id' }, c.charge_id),
      ]),
      { empty: 'Nothing was charged for this call (refused, failed, free, or not billed yet).' },
    ),
    detail.charges.length > 0
      ? h('p', { id: 'request-charged' }, `${formatNumber(detail.credits)} credits in all. `, ledgerLink)
      : null,
  );
}
