import { formatNumber, h } from './dom.js';

/** The largest limit the API takes (MAX_MONTHLY_CREDIT_LIMIT in src/common/monthly-credit-limit.ts). */
const MAX_LIMIT = 1_000_000_000_000;

/** What the API would refuse in the field (it takes a whole number from 0 to MAX_LIMIT, or null), in words. */
function problem(input: HTMLInputElement): string {
  if (input.validity.badInput) return 'Enter a whole number of credits, or leave it empty for no limit.';
  if (input.value === '') return '';
  const value = Number(input.value);
  if (!Number.isInteger(value)) return 'The limit is a whole number of credits.';
  if (value < 0) return 'The limit is 0 credits or more.';
  if (value > MAX_LIMIT) return `The limit is at most ${formatNumber(MAX_LIMIT)} credits.`;
  return '';
}

/**
 * A monthly credit limit's field, checked as the API checks it: a form holding it is not submitted while it is
 * wrong (the dashboard shows why under the field). Empty means no limit of its own.
 */
export function limitInput(value: number | null = null): HTMLInputElement {
  const input = h('input', {
    type: 'number',
    name: 'monthly_credit_limit',
    min: 0,
    max: MAX_LIMIT,
    step: 1,
    inputmode: 'numeric',
    autocomplete: 'off',
    placeholder: 'none',
    value: value ?? '',
  });
  const check = () => input.setCustomValidity(problem(input));
  input.addEventListener('input', check);
  check();
  return input;
}

/** The field's limit as the API takes it: a number, or null when empty. */
export const readLimit = (input: HTMLInputElement): number | null => (input.value === '' ? null : Number(input.value));

export const LIMIT_HINT = 'Whole credits per calendar month (UTC). Empty: no limit of its own.';
