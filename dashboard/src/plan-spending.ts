import { api } from './api.js';
import { formatNumber, h, table, timeEl } from './dom.js';

interface CreditGrant {
  grant_id: string;
  credits: number;
  recurrence: 'once' | 'monthly';
  expires_at: string | null;
  note: string | null;
  used: number;
  remaining: number;
  status: string;
}

interface Overage {
  credit_cap: number;
  price_per_credit: string;
  credits_used: number;
  amount: string;
}

/** The plan page's credit grants (used, remaining, expiry this month) and its overage (cap, price, used). */
export async function planSpending(orgId: string): Promise<Node[]> {
  const usage = await api<{ month: string; grants: CreditGrant[]; overage: Overage | null }>(
    'GET',
    `/orgs/${orgId}/usage`,
  );
  const overage = usage.overage;
  return [
    h('h2', {}, 'Credit grants'),
    table(
      `Credit grants in ${usage.month}`,
      ['Credits', 'Renews', 'Used this month', 'Remaining', 'Expires', 'Status', 'Note'],
      usage.grants.map((g) => [
        formatNumber(g.credits),
        g.recurrence === 'monthly' ? 'every month' : 'once',
        formatNumber(g.used),
        h('span', { 'data-figure': 'grant-remaining' }, formatNumber(g.remaining)),
        g.expires_at ? timeEl(g.expires_at) : 'never',
        g.status,
        g.note ?? '',
      ]),
      {
        empty:
          'No credit grants this month. Operators grant credits on top of the allowance (spent after it, the ' +
          'soonest to expire first).',
      },
    ),
    h('h2', {}, 'Overage'),
    overage
      ? h(
          'p',
          { id: 'overage', 'data-figure': 'overage' },
          `Pay-as-you-go past the allowance and grants: ${formatNumber(overage.credits_used)} of ` +
            `${formatNumber(overage.credit_cap)} credits this month, at ${overage.price_per_credit} a credit ` +
            `(${overage.amount} so far).`,
        )
      : h('p', { id: 'overage', class: 'hint' }, 'No overage: calls past the allowance and grants are refused (402).'),
  ];
}
