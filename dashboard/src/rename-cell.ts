import { field, h } from './dom.js';

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
  const cell = h('div', { class: 'name-cell' });
  const view = () => {
    const rename = h(
      'button',
      { type: 'button', class: 'link-button', 'aria-label': `Rename ${options.what}`, onclick: () => edit() },
      'Rename',
    );
    cell.replaceChildren(options.display?.(options.name) ?? h('span', { class: 'key-name' }, options.name));
    if (options.canRename) cell.append(rename);
    return rename;
  };
  const edit = () => {
    const input = h('input', {
      type: 'text',
      value: options.name,
      required: true,
      maxlength: 100,
      autocomplete: 'off',
    });
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
        onkeydown: (event: Event) => {
          if ((event as KeyboardEvent).key === 'Escape') view().focus();
        },
      },
      field('New name', input),
      h('button', { type: 'submit', class: 'button small' }, 'Save'),
      h('button', { type: 'button', class: 'button secondary small', onclick: () => view().focus() }, 'Cancel'),
      error,
    );
    cell.replaceChildren(form);
    input.focus();
    input.select();
  };
  view();
  return cell;
}
