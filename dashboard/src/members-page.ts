import { ApiError, type CurrentSession, PLANS, api } from './api.js';
import type { Context } from './context.js';
import { field, formatNumber, h, table, timeEl, uid } from './dom.js';
import { canManage } from './org-pages.js';
import { planSpending } from './plan-spending.js';

interface Member {
  user_id: string;
  email: string;
  role: string;
  added_at: string;
}

const ROLE_HELP: Record<string, string> = {
  owner: 'everything in the organization; the role cannot be changed',
  admin: 'projects, keys and members',
  member: 'reads usage, the ledger and requests; manages nothing',
};

/** Members (list; invite or change a role, for owners and admins) and the organization's plan and its limits. */
export async function membersPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const [{ members }, session, spending] = await Promise.all([
    api<{ members: Member[] }>('GET', `/orgs/${org.id}/members`),
    api<CurrentSession>('GET', '/auth/session'),
    planSpending(org.id),
  ]);
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
    session.operator
      ? planForm(ctx)
      : org.role === 'member'
        ? h(
            'p',
            { class: 'hint' },
            'Plans are changed by an operator of this server; the new limits apply within seconds.',
          )
        : h(
            'p',
            { class: 'hint' },
            'Plans are changed by an operator of this server (here, or with ',
            h('code', {}, 'npm run cli -- org plan'),
            '); the new limits apply within seconds.',
          ),
    ...spending,
    h('h2', {}, 'Members'),
    table(
      'Members',
      canManage(org) ? ['E-mail', 'Role', 'Added', 'Membership'] : ['E-mail', 'Role', 'Added'],
      members.map((m) => [
        m.email,
        h('span', {}, h('strong', {}, m.role), ' ', h('small', {}, `(${ROLE_HELP[m.role] ?? ''})`)),
        timeEl(m.added_at),
        ...(canManage(org) ? [m.role === 'owner' ? h('small', {}, 'the owner stays') : removeButton(ctx, m)] : []),
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
          const address = email.value.trim().toLowerCase();
          const article = /^[aeiou]/.test(role.value) ? 'an' : 'a';
          ctx.flash(`${address} is ${article} ${role.value} of ${org.name}. They sign in with their e-mail address.`);
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

/** For operators of the server only (the API refuses anyone else): a plan, and limits that override its own. */
function planForm(ctx: Context): HTMLFormElement {
  const org = ctx.org!;
  const plan = h(
    'select',
    { name: 'plan' },
    PLANS.map((name) => h('option', { value: name, selected: name === org.plan }, name)),
  );
  const limit = (name: string, min: number) =>
    h('input', { type: 'number', name, min, step: 1, inputmode: 'numeric', placeholder: "the plan's" });
  const allowance = limit('allowance', 0);
  const live = limit('rpm-live', 1);
  const test = limit('rpm-test', 1);
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button' }, 'Change plan');
  const number = (input: HTMLInputElement) => (input.value === '' ? undefined : Number(input.value));
  // A plan change applies to every key of the organization within seconds: it is asked for, then confirmed.
  const question = h('p', { id: 'plan-confirm-text' });
  const confirm = h('button', { type: 'button', class: 'button' }, 'Confirm change');
  const cancel = h('button', { type: 'button', class: 'button secondary' }, 'Cancel');
  const confirmation = h(
    'div',
    { class: 'notice', id: 'plan-confirm', role: 'group', 'aria-labelledby': 'plan-confirm-text', hidden: true },
    question,
    h('div', { class: 'row' }, confirm, cancel),
  );
  const controls = [plan, allowance, live, test];
  const asking = (on: boolean) => {
    confirmation.hidden = !on;
    submit.hidden = on;
    for (const control of controls) control.disabled = on;
  };
  cancel.onclick = () => {
    asking(false);
    submit.focus();
  };
  confirm.onclick = async () => {
    error.textContent = '';
    confirm.disabled = true;
    try {
      const changed = await api<{
        plan: string;
        monthly_credit_allowance: number;
        rate_limit_per_minute: { live: number; test: number };
      }>('PUT', `/orgs/${org.id}/plan`, {
        plan: plan.value,
        monthly_credit_allowance: number(allowance),
        rate_limit_per_minute: { live: number(live), test: number(test) },
      });
      await ctx.refreshOrgs();
      ctx.navigate(`/orgs/${org.id}/members`, { replace: true });
      ctx.flash(
        `Plan changed to ${changed.plan}: ${formatNumber(changed.monthly_credit_allowance)} credits a month, ` +
          `${formatNumber(changed.rate_limit_per_minute.live)}/${formatNumber(changed.rate_limit_per_minute.test)} ` +
          'requests a minute (live/test).',
      );
    } catch (e) {
      error.textContent = e instanceof ApiError ? e.message : 'The plan could not be changed.';
      confirm.disabled = false;
      asking(false);
    }
  };
  const limitsAsked = () =>
    [
      allowance.value === '' ? null : `${formatNumber(Number(allowance.value))} credits a month`,
      live.value === '' ? null : `${formatNumber(Number(live.value))} live requests a minute`,
      test.value === '' ? null : `${formatNumber(Number(test.value))} test requests a minute`,
    ].filter(Boolean);
  return h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'plan-form-title',
      onsubmit: (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        const limits = limitsAsked();
        question.textContent =
          `Change the plan of ${org.name} from ${org.plan} to ${plan.value}` +
          `${limits.length ? ` (${limits.join(', ')})` : ' with its own limits'}? ` +
          'It applies to every key of the organization within seconds, and the audit log will name you.';
        asking(true);
        confirm.focus();
      },
    },
    h('h2', { id: 'plan-form-title' }, 'Change the plan (operator)'),
    h(
      'p',
      { class: 'hint' },
      'You are an operator of this server. Leave a limit empty for the plan’s own; the new limits apply within seconds.',
    ),
    h(
      'div',
      { class: 'grid align-end' },
      field('Plan', plan),
      field('Monthly allowance (live credits)', allowance),
      field('Rate limit, live keys (requests/min)', live),
      field('Rate limit, test keys (requests/min)', test),
    ),
    error,
    submit,
    confirmation,
  );
}

/** Takes a member out of the organization, once confirmed: their sessions stop reaching it at once. */
function removeButton(ctx: Context, member: { user_id: string; email: string }): Node {
  const org = ctx.org!;
  const titleId = uid('dialog-title');
  const error = h('p', { class: 'form-error', role: 'alert' });
  const open = () => {
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, `Remove ${member.email}?`),
        h(
          'p',
          {},
          `${member.email} will no longer see ${org.name}, its keys or its usage. The audit log will name you.`,
        ),
        error,
        h(
          'div',
          { class: 'dialog-actions' },
          h('button', { type: 'submit', value: 'cancel', class: 'button secondary', autofocus: true }, 'Cancel'),
          h(
            'button',
            {
              type: 'button',
              class: 'button danger',
              onclick: async (event: Event) => {
                const button = event.currentTarget as HTMLButtonElement;
                button.disabled = true;
                try {
                  await api('DELETE', `/orgs/${org.id}/members/${member.user_id}`);
                  dialog.close();
                  ctx.navigate(`/orgs/${org.id}/members`, { replace: true });
                  ctx.flash(`${member.email} is no longer a member of ${org.name}.`);
                } catch (e) {
                  error.textContent = e instanceof ApiError ? e.message : 'The member could not be removed.';
                  button.disabled = false;
                }
              },
            },
            'Remove member',
          ),
        ),
      ),
    );
    dialog.addEventListener('close', () => dialog.remove());
    document.body.appendChild(dialog);
    dialog.showModal();
  };
  return h(
    'button',
    { type: 'button', class: 'button secondary', 'aria-label': `Remove ${member.email}`, onclick: open },
    'Remove',
  );
}
