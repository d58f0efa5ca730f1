/** A tiny element builder: text always goes in as text nodes (never as HTML), so nothing user-supplied is parsed. */
export type Child = Node | string | number | null | undefined | false | Child[];
type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue | ((event: Event) => void)>;

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function apply(element: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  apply(element, attrs);
  append(element, children);
  return element;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG_NS, tag) as SVGElement;
  apply(element, attrs);
  append(element, children);
  return element;
}

let ids = 0;
export const uid = (prefix: string) => `${prefix}-${++ids}`;

/** A labelled form field: the label's `for` points at the control. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLElement {
  control.id ||= uid('f');
  const hintEl = hint ? h('small', { id: uid('hint'), class: 'hint' }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl);
}

export const formatNumber = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

export function formatDate(iso: string | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return date.toLocaleString('en-GB', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
}

/** To the millisecond, in UTC: what finance matches against logs (2026-11-26 15:55:50.123 UTC). */
export function formatPreciseTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;
}

export function preciseTimeEl(iso: string): Node {
  return h('time', { datetime: iso, class: 'precise-time' }, formatPreciseTime(iso));
}

/** "October 2026" for 2026-10. */
export function formatMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, m - 1, 1)).toLocaleString('en-GB', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

export function timeEl(iso: string | null): Node {
  return iso ? h('time', { datetime: iso }, formatDate(iso)) : document.createTextNode('never');
}

/** A table that turns into labelled cards on narrow screens (each cell carries its column's name). */
export function table(
  caption: string,
  columns: string[],
  rows: Child[][],
  options: { empty?: string; footer?: Child[]; className?: string } = {},
): Node {
  if (rows.length === 0) return h('p', { class: 'empty' }, options.empty ?? 'Nothing yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: options.className ? `responsive ${options.className}` : 'responsive' },
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((cell, i) => h('td', { 'data-label': columns[i] ?? '' }, cell)),
          ),
        ),
      ),
      options.footer
        ? h(
            'tfoot',
            {},
            h(
              'tr',
              {},
              options.footer.map((cell, i) =>
                i === 0 ? h('th', { scope: 'row' }, cell) : h('td', { 'data-label': columns[i] ?? '' }, cell),
              ),
            ),
          )
        : null,
    ),
  );
}

/** Says something to screen-reader users (a polite live region in the page shell). */
export function announce(message: string): void {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  window.setTimeout(() => (region.textContent = message), 50);
}

/** One fact of a thing's page (a key, a request): its label and value, in a `dl.facts`. */
export function fact(label: string, value: Child): Node {
  return h('div', { class: 'fact' }, h('dt', {}, label), h('dd', {}, value));
}

/**
 * At most `max` characters, said when a value is longer rather than cut without a word (as `maxlength` cuts a paste):
 * the form will not submit, and the field says why.
 */
export function atMost(input: HTMLInputElement, max: number, what: string): HTMLInputElement {
  const check = () => {
    const length = input.value.trim().length;
    input.setCustomValidity(length > max ? `${what} can be at most ${max} characters; this one has ${length}.` : '');
  };
  input.addEventListener('input', check);
  check();
  return input;
}
