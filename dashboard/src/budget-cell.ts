import { budgetMeter } from './budget-meter.js';
import { field, h } from './dom.js';
import { cancelButton, inPlace } from './in-place.js';
import { LIMIT_HINT, limitInput, readLimit } from './limit-input.js';

/**
 * A key's or a project's monthly credit limit against its credits this month, with (when `canEdit`) a button that
 * opens a form in place: Save limit sends the new limit through `save`, Remove limit sends null, Cancel or Escape
 * goes back. What the server refuses is said in the form.
 */
export function budgetCell(options: {
  used: number;
  limit: number | null;
  /** Whose limit, for screen readers: "Change limit of <what>". */
  what: string;
  canEdit: boolean;
  save: (limit: number | null) => Promise<void>;
}): HTMLElement {
  const verb = options.limit === null ? 'Set limit' : 'Change limit';
  return inPlace({
    className: 'budget-cell',
    display: () => budgetMeter(options.used, options.limit),
    button: { text: verb, label: `${verb} of ${options.what}` },
    canEdit: options.canEdit,
    form: (back) => {
      const input = limitInput(options.limit);
      const error = h('span', { class: 'form-error', role: 'alert' });
      const send = async (limit: number | null) => {
        error.textContent = '';
        try {
          await options.save(limit);
        } catch (e) {
          error.textContent = (e as Error).message;
        }
      };
      const form = h(
        'form',
        {
          class: 'budget-form',
          onsubmit: (event: Event) => {
            event.preventDefault();
            void send(readLimit(input));
          },
        },
        field('Monthly credit limit', input, LIMIT_HINT),
        h(
          'div',
          { class: 'budget-actions' },
          h('button', { type: 'submit', class: 'button small' }, 'Save limit'),
          options.limit === null
            ? null
            : h(
                'button',
                { type: 'button', class: 'button secondary small', onclick: () => void send(null) },
                'Remove limit',
              ),
          cancelButton(back),
        ),
        error,
      );
      return { form, focus: input };
    },
  });
}
