import { ApiError, type ApiKey, type Organization, type Project, type Usage, api } from './api.js';
import { budgetCell } from './budget-cell.js';
import { limitText } from './budget-meter.js';
import { type Context, navLink } from './context.js';
import { field, formatMonth, formatNumber, h, table, timeEl, atMost } from './dom.js';
import { LIMIT_HINT, limitInput, readLimit } from './limit-input.js';
import { renameCell } from './rename-cell.js';

export const canManage = (org: Organization) => org.role === 'owner' || org.role === 'admin';

/** A create form: a name (and any `extra` fields, which `post` reads itself) in, POST, then `done` with the answer. */
export function nameForm<T>(options: {
  heading: string;
  label: string;
  button: string;
  extra?: Node;
  post: (name: string) => Promise<T>;
  done: (created: T) => void;
}): HTMLFormElement {
  const input = atMost(h('input', { type: 'text', name: 'name', required: true, autocomplete: 'off' }), 100, 'A name');
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button' }, options.button);
  const headingId = `h-${options.heading.replace(/\W+/g, '-').toLowerCase()}`;
  return h(
    'form',
    {
      class: 'card inline-form',
      'aria-labelledby': headingId,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        const name = input.value.trim();
        if (!name) {
          error.textContent = `${options.label} is required.`;
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          return;
        }
        input.removeAttribute('aria-invalid');
        submit.disabled = true;
        try {
          options.done(await options.post(name));
        } catch (e) {
          error.textContent = (e as Error).message;
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: headingId }, options.heading),
    // With more fields (and their hints), the button goes below them, as in the key form.
    options.extra
      ? [h('div', { class: 'grid' }, field(options.label, input), options.extra), error, submit]
      : [h('div', { class: 'row' }, field(options.label, input), submit), error],
  );
}

export async function organizationsPage(ctx: Context): Promise<Node> {
  await ctx.refreshOrgs();
  const orgs = ctx.orgs.length
    ? ctx.orgs
    : (await api<{ organizations: Organization[] }>('GET', '/orgs')).organizations;
  return h(
    'div',
    {},
    h('h1', {}, 'Organizations'),
    orgs.length === 0
      ? h(
          'p',
          { class: 'lead' },
          'Welcome! Create an organization to get API keys. The free plan includes 1,000 credits a month.',
        )
      : table(
          'Your organizations',
          ['Name', 'Plan', 'Credits a month', 'Your role', 'Created'],
          orgs.map((o) => [
            navLink(`/orgs/${o.id}/usage`, o.name),
            o.plan,
            formatNumber(o.monthly_credit_allowance),
            o.role,
            timeEl(o.created_at),
          ]),
        ),
    nameForm<Organization>({
      heading: 'Create an organization',
      label: 'Organization name',
      button: 'Create organization',
      post: (name) => api('POST', '/orgs', { name }),
      done: (org) => {
        void ctx.refreshOrgs().then(() => {
          ctx.navigate(`/orgs/${org.id}/keys`);
          ctx.flash(`Organization “${org.name}” created, with a first project. Next, create a key.`);
        });
      },
    }),
  );
}

export async function listProjects(orgId: string): Promise<Project[]> {
  return (await api<{ projects: Project[] }>('GET', `/orgs/${orgId}/projects`)).projects;
}

export async function projectsPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const [projects, keys, usage] = await Promise.all([
    listProjects(org.id),
    api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`).then((r) => r.keys),
    api<Usage>('GET', `/orgs/${org.id}/usage`),
  ]);
  const figures = (projectId: string, environment: 'live' | 'test') =>
    usage.by_project.find((u) => u.project_id === projectId && u.environment === environment)?.credits ?? 0;
  const reload = (message: string) => {
    ctx.flash(message);
    ctx.navigate(`/orgs/${org.id}/projects`, { replace: true });
  };
  const limit = limitInput();
  return h(
    'div',
    {},
    h('h1', {}, `Projects of ${org.name}`),
    h(
      'p',
      { class: 'lead' },
      `Projects group API keys; usage is reported per project. Credits: ${formatMonth(usage.month)}. A project's ` +
        'monthly credit limit counts the live credits of all its keys together.',
    ),
    table(
      'Projects',
      ['Name', 'Active keys', 'Live credits', 'Test credits', 'Monthly limit (live)', 'Created', 'See'],
      projects.map((p) => [
        renameCell({
          name: p.name,
          what: p.name,
          canRename: canManage(org),
          save: async (name) => {
            await api('PATCH', `/orgs/${org.id}/projects/${p.id}`, { name });
            reload(`Project renamed to “${name}”.`);
          },
        }),
        formatNumber(keys.filter((k) => k.project_id === p.id && k.status === 'active').length),
        formatNumber(figures(p.id, 'live')),
        formatNumber(figures(p.id, 'test')),
        budgetCell({
          used: figures(p.id, 'live'),
          limit: p.monthly_credit_limit,
          what: p.name,
          canEdit: canManage(org),
          save: async (limit) => {
            await api('PATCH', `/orgs/${org.id}/projects/${p.id}`, { monthly_credit_limit: limit });
            reload(
              limit === null
                ? `Project “${p.name}” has no monthly credit limit of its own now.`
                : `Monthly credit limit of project “${p.name}” set to ${limitText(limit)}.`,
            );
          },
        }),
        timeEl(p.created_at),
        // One element per cell: on a phone each cell is a grid of its label and one value.
        h(
          'span',
          {},
          navLink(`/orgs/${org.id}/ledger?project_id=${p.id}`, 'Ledger', { 'aria-label': `Ledger of ${p.name}` }),
          ' · ',
          navLink(`/orgs/${org.id}/keys`, 'Keys', { 'aria-label': `Keys of ${p.name}` }),
        ),
      ]),
      { empty: 'No project yet. Create one to add API keys.' },
    ),
    canManage(org)
      ? nameForm<Project>({
          heading: 'Create a project',
          label: 'Project name',
          button: 'Create project',
          extra: field('Monthly credit limit (optional)', limit, LIMIT_HINT),
          post: (name) => api('POST', `/orgs/${org.id}/projects`, { name, monthly_credit_limit: readLimit(limit) }),
          done: (project) => {
            ctx.navigate(`/orgs/${org.id}/keys`);
            ctx.flash(`Project “${project.name}” created. You can now create API keys for it.`);
          },
        })
      : h('p', {}, 'Only owners and admins create projects.'),
  );
}

export const isNotFound = (error: unknown) => error instanceof ApiError && error.status === 404;
