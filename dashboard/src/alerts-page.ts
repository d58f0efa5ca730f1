import { ApiError, type ApiKey, type Project, api } from './api.js';
import { type Context, navLink } from './context.js';
import { field, formatMonth, formatNumber, h, table, timeEl } from './dom.js';
import { canManage } from './org-pages.js';

interface Thresholds {
  scope: 'organization' | 'project' | 'key';
  id: string;
  thresholds: number[];
  default: boolean;
}
interface Crossed {
  id: string;
  scope: Thresholds['scope'];
  scope_id: string;
  billing_month: string;
  threshold: number;
  credits_used: number;
  credits_limit: number;
  crossed_at: string;
}
interface Webhook {
  id: string;
  url: string;
  description: string | null;
  created_at: string;
}
interface Delivery {
  id: string;
  event_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: string | null;
  created_at: string;
  attempts: { attempt: number; started_at: string; status_code: number | null; error: string | null }[];
}

const percentages = (list: number[]) => (list.length ? list.map((p) => `${p} %`).join(', ') : 'none');

/** Alert thresholds of every limit, the alerts sent, and the webhook endpoints they go to. */
export async function alertsPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const [thresholds, alerts, webhooks, projects, keys] = await Promise.all([
    api<{ thresholds: Thresholds[] }>('GET', `/orgs/${org.id}/alert-thresholds`).then((r) => r.thresholds),
    api<{ alerts: Crossed[] }>('GET', `/orgs/${org.id}/alerts`).then((r) => r.alerts),
    api<{ webhooks: Webhook[] }>('GET', `/orgs/${org.id}/webhooks`).then((r) => r.webhooks),
    api<{ projects: Project[] }>('GET', `/orgs/${org.id}/projects`).then((r) => r.projects),
    api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`).then((r) => r.keys),
  ]);
  const nameOf = (scope: Thresholds['scope'], id: string) =>
    scope === 'organization'
      ? 'Organization allowance'
      : scope === 'project'
        ? `Project “${projects.find((p) => p.id === id)?.name ?? id}”`
        : `Key “${keys.find((k) => k.id === id)?.name ?? id}”`;
  const manage = canManage(org);
  return h(
    'div',
    {},
    h('h1', {}, `Alerts of ${org.name}`),
    h(
      'p',
      { class: 'lead' },
      'An alert goes to every webhook endpoint below and by e-mail to the owners once a month’s credits reach a ' +
        'threshold of a limit: the allowance, or a project’s or key’s monthly limit.',
    ),
    h('h2', {}, 'Alert thresholds'),
    table(
      'Alert thresholds',
      ['Limit', 'Thresholds'],
      thresholds.map((t) => [nameOf(t.scope, t.id), percentages(t.thresholds) + (t.default ? ' (default)' : '')]),
    ),
    h(
      'p',
      { class: 'hint' },
      'Projects and keys with a monthly limit and no thresholds of their own alert at 50, 80 and 100 %.',
    ),
    manage
      ? thresholdsForm(ctx, [
          ['organization', org.id, 'Organization allowance'],
          ...projects.map((p): [string, string, string] => ['project', p.id, nameOf('project', p.id)]),
          ...keys
            .filter((k) => k.status === 'active')
            .map((k): [string, string, string] => ['key', k.id, nameOf('key', k.id)]),
        ])
      : null,
    h('h2', {}, 'Alerts sent'),
    table(
      'Alerts sent',
      ['Crossed', 'Limit', 'Threshold', 'Credits'],
      alerts.map((a) => [
        timeEl(a.crossed_at),
        `${nameOf(a.scope, a.scope_id)}, ${formatMonth(a.billing_month)}`,
        `${a.threshold} %`,
        `${formatNumber(a.credits_used)} of ${formatNumber(a.credits_limit)}`,
      ]),
      { empty: 'No threshold crossed yet.' },
    ),
    h('h2', {}, 'Webhook endpoints'),
    table(
      'Webhook endpoints',
      ['URL', 'Description', 'Added', 'Deliveries'],
      webhooks.map((w) => [
        h('code', { class: 'break' }, w.url),
        w.description ?? '',
        timeEl(w.created_at),
        [
          navLink(`/orgs/${org.id}/alerts/${w.id}`, 'Delivery log', { 'aria-label': `Delivery log of ${w.url}` }),
          manage ? [' ', removeButton(ctx, w)] : null,
        ],
      ]),
      { empty: 'No webhook endpoint yet.' },
    ),
    manage ? webhookForm(ctx) : h('p', { class: 'hint' }, 'Owners and admins add webhook endpoints.'),
  );
}

function thresholdsForm(ctx: Context, limits: [string, string, string][]): HTMLFormElement {
  const org = ctx.org!;
  const limit = h(
    'select',
    { name: 'limit' },
    limits.map(([scope, id, label]) => h('option', { value: `${scope}:${id}` }, label)),
  );
  const input = h('input', { type: 'text', name: 'thresholds', placeholder: '50, 80, 100', autocomplete: 'off' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button' }, 'Save thresholds');
  return h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'thresholds-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        const text = input.value.trim();
        const list =
          text === ''
            ? []
            : text
                .split(/[\s,]+/)
                .map(Number)
                .sort((a, b) => a - b);
        if (list.some((p) => !Number.isInteger(p) || p < 1 || p > 1000)) {
          error.textContent = 'Thresholds are whole percentages from 1 to 1000, separated by commas.';
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          return;
        }
        input.removeAttribute('aria-invalid');
        const [scope, id] = limit.value.split(':') as [string, string];
        submit.disabled = true;
        try {
          await api('PUT', `/orgs/${org.id}/alert-thresholds`, {
            scope,
            ...(scope === 'organization' ? {} : { id }),
            thresholds: list,
          });
          ctx.flash(`Alert thresholds of ${limit.selectedOptions[0]?.textContent ?? ''} set to ${percentages(list)}.`);
          ctx.navigate(`/orgs/${org.id}/alerts`, { replace: true });
        } catch (e) {
          error.textContent = e instanceof ApiError ? e.message : 'The thresholds could not be saved.';
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'thresholds-title' }, 'Set alert thresholds'),
    h('div', { class: 'grid align-end' }, field('Limit', limit), field('Thresholds (%)', input, 'Empty: no alerts.')),
    error,
    submit,
  );
}

function webhookForm(ctx: Context): HTMLFormElement {
  const org = ctx.org!;
  const url = h('input', { type: 'url', name: 'url', required: true, maxlength: 2000, autocomplete: 'off' });
  const description = h('input', { type: 'text', name: 'description', maxlength: 200, autocomplete: 'off' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button' }, 'Add endpoint');
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'webhook-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        submit.disabled = true;
        try {
          const created = await api<Webhook & { secret: string }>('POST', `/orgs/${org.id}/webhooks`, {
            url: url.value.trim(),
            ...(description.value.trim() ? { description: description.value.trim() } : {}),
          });
          form.replaceWith(secretCard(ctx, created));
        } catch (e) {
          error.textContent = e instanceof ApiError ? e.message : 'The endpoint could not be added.';
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'webhook-title' }, 'Add a webhook endpoint'),
    h('div', { class: 'grid' }, field('Endpoint URL', url), field('Description (optional)', description)),
    error,
    submit,
  );
  return form;
}

function secretCard(ctx: Context, created: Webhook & { secret: string }): Node {
  const secret = h('input', {
    type: 'text',
    class: 'secret',
    readonly: true,
    value: created.secret,
    'aria-label': 'Signing secret',
  });
  return h(
    'div',
    { class: 'card', role: 'status' },
    h('h2', {}, 'Endpoint added'),
    h('p', {}, 'Copy its signing secret now: it is not shown again. Receivers check Search-Ledger-Signature with it.'),
    secret,
    h(
      'p',
      {},
      h(
        'button',
        { type: 'button', class: 'button', onclick: () => ctx.navigate(`/orgs/${ctx.org!.id}/alerts`) },
        'Done',
      ),
    ),
  );
}

function removeButton(ctx: Context, webhook: Webhook): HTMLButtonElement {
  const org = ctx.org!;
  return h(
    'button',
    {
      type: 'button',
      class: 'button danger-outline small',
      'aria-label': `Remove ${webhook.url}`,
      onclick: async () => {
        if (!window.confirm(`Remove ${webhook.url}? Nothing more is delivered to it.`)) return;
        try {
          await api('DELETE', `/orgs/${org.id}/webhooks/${webhook.id}`);
          ctx.flash(`${webhook.url} removed.`);
        } catch (e) {
          ctx.flash(e instanceof ApiError ? e.message : 'The endpoint could not be removed.', 'error');
        }
        ctx.navigate(`/orgs/${org.id}/alerts`, { replace: true });
      },
    },
    'Remove',
  );
}

/** One endpoint's delivery log: each alert sent to it, every attempt, and a replay for owners and admins. */
export async function webhookPage(ctx: Context, webhookId: string): Promise<Node> {
  const org = ctx.org!;
  const [webhooks, deliveries] = await Promise.all([
    api<{ webhooks: Webhook[] }>('GET', `/orgs/${org.id}/webhooks`).then((r) => r.webhooks),
    api<{ deliveries: Delivery[] }>('GET', `/orgs/${org.id}/webhooks/${webhookId}/deliveries`).then(
      (r) => r.deliveries,
    ),
  ]);
  const webhook = webhooks.find((w) => w.id === webhookId)!;
  const attempts = (d: Delivery) =>
    d.attempts.length === 0
      ? 'none yet'
      : d.attempts.map((a) => `#${a.attempt}: ${a.status_code ?? a.error ?? 'no answer'}`).join(' · ');
  return h(
    'div',
    {},
    navLink(`/orgs/${org.id}/alerts`, '← Alerts'),
    h('h1', {}, 'Delivery log'),
    h('p', {}, h('code', { class: 'break' }, webhook.url)),
    table(
      'Deliveries',
      ['Created', 'Event id', 'Status', 'Attempts', ''],
      deliveries.map((d) => [
        timeEl(d.created_at),
        h('code', { class: 'break' }, d.event_id),
        d.status === 'pending' && d.next_attempt_at ? ['pending, next ', timeEl(d.next_attempt_at)] : d.status,
        attempts(d),
        canManage(org) ? replayButton(ctx, webhookId, d) : '',
      ]),
      { empty: 'Nothing delivered to this endpoint yet.' },
    ),
  );
}

function replayButton(ctx: Context, webhookId: string, delivery: Delivery): HTMLButtonElement {
  const org = ctx.org!;
  return h(
    'button',
    {
      type: 'button',
      class: 'button secondary small',
      'aria-label': `Replay ${delivery.event_id}`,
      onclick: async () => {
        try {
          await api('POST', `/orgs/${org.id}/webhooks/${webhookId}/deliveries/${delivery.id}/replay`);
          ctx.flash('Sent again: the attempt shows here in a moment.');
        } catch (e) {
          ctx.flash(e instanceof ApiError ? e.message : 'The delivery could not be replayed.', 'error');
        }
        ctx.navigate(`/orgs/${org.id}/alerts/${webhookId}`, { replace: true });
      },
    },
    'Replay',
  );
}
