import { type ApiKey, type Project, api } from './api.js';
import { h } from './dom.js';

const FIRST_KEY_NAME = 'First key';

/**
 * The keys page of an organization without keys: one button makes a live key with every scope in its first project
 * (the one it was created with), so a new organization's first key is one step. The form below it still chooses.
 */
export function firstKeyCard(
  orgId: string,
  project: Project,
  created: (key: ApiKey & { key: string }) => void,
): HTMLElement {
  const error = h('p', { class: 'form-error', role: 'alert' });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'button',
      onclick: async () => {
        button.disabled = true;
        error.textContent = '';
        try {
          const key = await api<ApiKey & { key: string }>('POST', `/orgs/${orgId}/api-keys`, {
            name: FIRST_KEY_NAME,
            project_id: project.id,
          });
          card.remove();
          created(key);
        } catch (e) {
          error.textContent = (e as Error).message;
          button.disabled = false;
        }
      },
    },
    'Create my first key',
  );
  const card = h(
    'section',
    { class: 'card first-key', 'aria-labelledby': 'first-key-title' },
    h('h2', { id: 'first-key-title' }, 'Your first key'),
    h(
      'p',
      {},
      `One click makes a live key named “${FIRST_KEY_NAME}” with every scope, in the project “${project.name}”. `,
      'To choose its name, environment and scopes, use the form below instead.',
    ),
    button,
    error,
  );
  return card;
}
