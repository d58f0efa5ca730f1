import { ApiError, api } from './api.js';
import type { Context } from './context.js';
import { field, formatNumber, h, table, timeEl } from './dom.js';
import { canManage } from './org-pages.js';

interface Member {
  user_id: string;
  email: string;
  role: string;
  added_at: string;
}

const ROLE_HELP: Record<string, string> = {
  owner: 'everything, including the plan; cannot be changed',
  admin: 'projects, keys and members',
  member: 'reads usage, the ledger and requests; manages nothing',
};

/** Members (list; invite or change a role, for owners and admins) and the organization's plan and its limits. */
export async function membersPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const { members } = await api<{ members: Member[] }>('GET', `/orgs/${org.id}/members`);
  return h(
    'div',
    {},
    h('h1', {}, `Members and plan of ${org.name}`),
    h('h2', {}, 'Plan'),
    h(
      'dl',
      { class: 'stats', id: 'plan' },
      stat('Plan', org.plan),
      stat('Monthly allowance (live credits)', formatNumber(org.monthly_credit_allowance)),
      stat('Rate limit, live keys', `${formatNumber(org.rate_limit_per_minute.live)} requests/min`),
      stat('Rate limit, test keys', `${formatNumber(org.rate_limit_per_minute.test)} requests/min`),
    ),
    h(
      'p',
      { class: 'hint' },
      'Plans are changed by the operator of this server (',
      h('code', {}, 'npm run cli -- org plan'),
      '); the new limits apply within seconds.',
    ),
    h('h2', {}, 'Members'),
    table(
      'Members',
      ['E-mail', 'Role', 'Added'],
      members.map((m) => [
        m.email,
        [h('strong', {}, m.role), ' ', h('small', {}, `(${ROLE_HELP[m.role] ?? ''})`)],
        timeEl(m.added_at),
      ]),
    ),
    canManage(org) ? inviteForm(ctx) : h('p', { class: 'hint' }, 'Owners and admins add members.'),
  );
}

function stat(label: string, value: string): Node {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value));
}

function inviteForm(ctx: Context): HTMLFormElement {
  const org = ctx.org!;
  const email = h('input', { type: 'email', name: 'email', required: true, maxlength: 254, autocomplete: 'off' });
  const role = h(
    'select',
    { name: 'role' },
    h('option', { value: 'member' }, 'member: reads usage, the ledger and requests'),
    h('option', { value: 'admin' }, 'admin: manages projects, keys and members'),
  );
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button' }, 'Add member');
  return h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'invite-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        submit.disabled = true;
        try {
          await api('POST', `/orgs/${org.id}/members`, { email: email.value.trim(), role: role.value });
          ctx.flash(`${email.value.trim()} is a ${role.value} of ${org.name}. They sign in with their e-mail address.`);
          ctx.navigate(`/orgs/${org.id}/members`, { replace: true });
        } catch (e) {
          error.textContent = e instanceof ApiError ? e.message : 'The member could not be added.';
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'invite-title' }, 'Add a member, or change a role'),
    h('p', {}, 'Adding an address that is already a member changes its role.'),
    field('E-mail address', email),
    field('Role', role),
    error,
    submit,
  );
}
