import { firstKeyCard } from './first-key.js';
import { quickstart } from './quickstart.js';
import { type ApiKey, type Project, SCOPES, api } from './api.js';
import { type Context, navLink } from './context.js';
import { limitText } from './budget-meter.js';
import { announce, field, h, table, timeEl, uid, atMost } from './dom.js';
import { LIMIT_HINT, limitInput, readLimit } from './limit-input.js';
import { renameCell } from './rename-cell.js';
import { canManage, listProjects } from './org-pages.js';

export async function keysPage(ctx: Context): Promise<Node> {
  const org = ctx.org!;
  const [keys, projects] = await Promise.all([
    api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`).then((r) => r.keys),
    listProjects(org.id),
  ]);
  const manage = canManage(org);
  const reveal = h('div', { class: 'reveal-slot' });
  const list = h('div', {});
  const reload = async () =>
    renderList(ctx, list, (await api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`)).keys, projects);
  const page = h(
    'div',
    {},
    h('h1', {}, 'API keys'),
    h(
      'p',
      { class: 'lead' },
      'Keys authenticate calls to the search API. A key is shown once, when it is created; after that only its prefix.',
    ),
    reveal,
    manage && keys.length === 0 && projects[0]
      ? firstKeyCard(org.id, projects[0], (created) => {
          showOnce(reveal, created);
          void reload();
        })
      : null,
    manage && projects.length > 0 ? createForm(ctx, projects, reveal, list) : null,
    manage && projects.length === 0
      ? h(
          'p',
          { class: 'notice' },
          'Every key belongs to a project. ',
          navLink(`/orgs/${org.id}/projects`, 'Create a project first'),
          '.',
        )
      : null,
    h('h2', { id: 'keys-title', tabindex: '-1' }, 'Keys'),
    list,
  );
  renderList(ctx, list, keys, projects);
  return page;
}

function renderList(ctx: Context, list: HTMLElement, keys: ApiKey[], projects: Project[]): void {
  const org = ctx.org!;
  const projectName = (id: string) => projects.find((p) => p.id === id)?.name ?? id;
  const reload = async (message?: string) => {
    const fresh = (await api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`)).keys;
    renderList(ctx, list, fresh, projects);
    if (message) ctx.flash(message);
  };
  list.replaceChildren(
    table(
      'API keys',
      [
        'Name',
        'Prefix',
        'Environment',
        'Project',
        'Allowed',
        'Monthly limit',
        'Created',
        'Last used',
        'Status',
        'Actions',
      ],
      keys.map((key) => [
        nameCell(ctx, key, reload),
        h('code', { class: 'prefix' }, `${key.prefix}…`),
        h('span', { class: `badge env-${key.environment}` }, key.environment),
        projectName(key.project_id),
        h(
          'span',
          { class: 'scopes' },
          key.scopes.join(', '),
          key.depth_limit === 'basic' ? h('strong', {}, ' · basic depth only') : null,
        ),
        limitText(key.monthly_credit_limit),
        timeEl(key.created_at),
        key.last_used_at ? timeEl(key.last_used_at) : 'never',
        h('span', { class: `badge status-${key.status}` }, key.status),
        canManage(org) && key.status === 'active'
          ? h(
              'button',
              {
                type: 'button',
                class: 'button danger-outline small',
                'aria-label': `Revoke ${key.name}`,
                onclick: () => confirmRevoke(ctx, key, reload),
              },
              'Revoke',
            )
          : '—',
      ]),
      { empty: 'No keys yet.' },
    ),
  );
}

/** The name (a link to the key's page), and for owners and admins a Rename button that edits it in place. */
function nameCell(ctx: Context, key: ApiKey, reload: (message?: string) => Promise<void>): Node {
  return renameCell({
    name: key.name,
    what: key.name,
    canRename: canManage(ctx.org!),
    display: (name) => navLink(`/orgs/${ctx.org!.id}/keys/${key.id}`, name, { class: 'key-name' }),
    save: async (name) => {
      await api('PATCH', `/orgs/${ctx.org!.id}/api-keys/${key.id}`, { name });
      await reload(`Key renamed to “${name}”.`);
    },
  });
}

export function confirmRevoke(ctx: Context, key: ApiKey, reload: (message?: string) => Promise<void>): void {
  const titleId = uid('dialog-title');
  const error = h('p', { class: 'form-error', role: 'alert' });
  const dialog = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': titleId },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: titleId }, `Revoke “${key.name}”?`),
      h(
        'p',
        {},
        'Every call made with ',
        h('code', {}, `${key.prefix}…`),
        ' will be refused with 401 at once. This cannot be undone.',
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
                await api('DELETE', `/orgs/${ctx.org!.id}/api-keys/${key.id}`);
                dialog.close();
                await reload(`Key “${key.name}” revoked.`);
                document.querySelector<HTMLElement>('#keys-title')?.focus();
              } catch (e) {
                error.textContent = (e as Error).message;
                button.disabled = false;
              }
            },
          },
          'Revoke key',
        ),
      ),
    ),
  );
  dialog.addEventListener('close', () => dialog.remove());
  document.body.appendChild(dialog);
  dialog.showModal();
}

function createForm(ctx: Context, projects: Project[], reveal: HTMLElement, list: HTMLElement): HTMLFormElement {
  const org = ctx.org!;
  const name = atMost(
    h('input', { type: 'text', name: 'name', required: true, autocomplete: 'off' }),
    100,
    'A key name',
  );
  const project = h(
    'select',
    { name: 'project' },
    projects.map((p, i) => h('option', { value: p.id, selected: i === projects.length - 1 }, p.name)),
  );
  const envName = uid('env');
  const environments = (['live', 'test'] as const).map((env) =>
    h('input', { type: 'radio', name: envName, value: env, checked: env === 'live', id: uid('env') }),
  );
  const scopes = SCOPES.map((scope) => h('input', { type: 'checkbox', value: scope, checked: true, id: uid('scope') }));
  const basicOnly = h('input', { type: 'checkbox', id: uid('depth') });
  const limit = limitInput();
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button' }, 'Create key');
  const form = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'create-key-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        const chosen = scopes.filter((s) => s.checked).map((s) => s.value);
        if (!name.value.trim()) {
          error.textContent = 'Give the key a name, e.g. “Production backend”.';
          name.setAttribute('aria-invalid', 'true');
          name.focus();
          return;
        }
        name.removeAttribute('aria-invalid');
        if (chosen.length === 0) {
          error.textContent = 'Choose at least one scope.';
          scopes[0]?.focus();
          return;
        }
        submit.disabled = true;
        try {
          const created = await api<ApiKey & { key: string }>('POST', `/orgs/${org.id}/api-keys`, {
            name: name.value.trim(),
            project_id: project.value,
            environment: environments.find((e) => e.checked)?.value ?? 'live',
            scopes: chosen,
            depth_limit: basicOnly.checked ? 'basic' : null,
            monthly_credit_limit: readLimit(limit),
          });
          form.reset();
          showOnce(reveal, created);
          const fresh = (await api<{ keys: ApiKey[] }>('GET', `/orgs/${org.id}/api-keys`)).keys;
          renderList(ctx, list, fresh, projects);
        } catch (e) {
          error.textContent = (e as Error).message;
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'create-key-title' }, 'Create a key'),
    h(
      'div',
      { class: 'grid' },
      field('Key name', name, 'Only you see it, e.g. “Production backend”.'),
      field('Project', project),
      field('Monthly credit limit (optional)', limit, LIMIT_HINT),
    ),
    h(
      'fieldset',
      { class: 'choices' },
      h('legend', {}, 'Environment'),
      environments.map((input) =>
        h(
          'label',
          { for: input.id, class: 'choice' },
          input,
          input.value === 'live'
            ? ' Live (uses the monthly credits)'
            : ' Test (recorded, not counted, lower rate limit)',
        ),
      ),
    ),
    h(
      'fieldset',
      { class: 'choices' },
      h('legend', {}, 'Scopes: what the key may call'),
      scopes.map((input) => h('label', { for: input.id, class: 'choice' }, input, ` ${input.value}`)),
    ),
    h(
      'div',
      { class: 'choices' },
      h(
        'label',
        { for: basicOnly.id, class: 'choice' },
        basicOnly,
        ' Basic depth only (refuse advanced search and extraction)',
      ),
    ),
    error,
    submit,
  );
  return form;
}

/** The plaintext key, this once: a copy button and a plain warning. Dismissing it forgets the key. */
function showOnce(slot: HTMLElement, created: ApiKey & { key: string }): void {
  const output = h('input', {
    type: 'text',
    readonly: true,
    value: created.key,
    class: 'secret',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const copied = h('span', { class: 'copy-status', role: 'status', 'aria-live': 'polite' });
  const copy = h(
    'button',
    {
      type: 'button',
      class: 'button',
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(output.value);
          copied.textContent = 'Copied to the clipboard.';
        } catch {
          output.focus();
          output.select();
          copied.textContent = 'Copying is blocked here: the key is selected, press Ctrl+C (⌘C on a Mac).';
        }
      },
    },
    'Copy key',
  );
  const panel = h(
    'section',
    { class: 'card reveal', 'aria-labelledby': 'reveal-title', tabindex: '-1' },
    h('h2', { id: 'reveal-title' }, `Your new key “${created.name}”`),
    h(
      'p',
      { class: 'warning' },
      h('strong', {}, 'Copy it now. '),
      'This is the only time the full key is shown: we keep only a hash of it. If you lose it, revoke it and create a new one.',
    ),
    h('div', { class: 'row' }, field('API key', output), copy),
    copied,
    quickstart(created.key),
    h(
      'button',
      {
        type: 'button',
        class: 'button secondary',
        onclick: () => {
          slot.replaceChildren();
          document.getElementById('keys-title')?.focus();
        },
      },
      'I have stored it: hide the key',
    ),
  );
  slot.replaceChildren(panel);
  panel.focus();
  announce(`Key ${created.name} created. Copy it now: it is shown only once.`);
}
