import { field, h, atMost } from './dom.js';
import { cancelButton, inPlace } from './in-place.js';

/**
 * A name with (when `canRename`) a Rename button that edits it in place: Save sends the new name through `save`,
 * Cancel or Escape goes back. Keys and projects are renamed the same way.
 */
export function renameCell(options: {
  name: string;
  /** What is renamed, for screen readers: "Rename <what>". */
  what: string;
  canRename: boolean;
  save: (name: string) => Promise<void>;
  /** Shown as it is, or wrapped (a link to the thing). */
  display?: (name: string) => Node;
}): HTMLElement {
  return inPlace({
    className: 'name-cell',
    display: () => options.display?.(options.name) ?? h('span', { class: 'key-name' }, options.name),
    button: { text: 'Rename', label: `Rename ${options.what}` },
    canEdit: options.canRename,
    form: (back) => {
      const input = atMost(
        h('input', { type: 'text', value: options.name, required: true, autocomplete: 'off' }),
        100,
        'A name',
      );
      const error = h('span', { class: 'form-error', role: 'alert' });
      const form = h(
        'form',
        {
          class: 'rename-form',
          onsubmit: async (event: Event) => {
            event.preventDefault();
            const name = input.value.trim();
            if (!name) {
              error.textContent = 'A name is required.';
              input.focus();
              return;
            }
            try {
              await options.save(name);
            } catch (e) {
              error.textContent = (e as Error).message;
            }
          },
        },
        field('New name', input),
        h('button', { type: 'submit', class: 'button small' }, 'Save'),
        cancelButton(back),
        error,
      );
      return { form, focus: input };
    },
  });
}
