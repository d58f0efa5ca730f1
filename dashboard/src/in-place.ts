import { h } from './dom.js';

/**
 * A value shown with (when `canEdit`) a button that swaps it for a small form in place; Cancel (`cancelButton`)
 * and Escape swap back and put the focus on the button again. Names and monthly credit limits of keys and projects
 * are edited this way.
 */
export function inPlace(options: {
  className: string;
  display: () => Node;
  /** The button's text, and its name for screen readers ("Rename <what>"). */
  button: { text: string; label: string };
  canEdit: boolean;
  /** The form, given the way back; `focus` is the control that takes the focus when it opens. */
  form: (back: () => void) => { form: HTMLFormElement; focus: HTMLInputElement };
}): HTMLElement {
  const cell = h('div', { class: options.className });
  const view = () => {
    const open = h(
      'button',
      { type: 'button', class: 'link-button', 'aria-label': options.button.label, onclick: () => edit() },
      options.button.text,
    );
    cell.replaceChildren(options.display());
    if (options.canEdit) cell.append(open);
    return open;
  };
  const back = () => view().focus();
  const edit = () => {
    const { form, focus } = options.form(back);
    form.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') back();
    });
    cell.replaceChildren(form);
    focus.focus();
    focus.select();
  };
  view();
  return cell;
}

export const cancelButton = (back: () => void) =>
  h('button', { type: 'button', class: 'button secondary small', onclick: back }, 'Cancel');
