import { NEVER_CONTENT } from './boilerplate.js';
import { type DomDocument, collapsedLength } from './dom.js';

const NOSCRIPT_HINT =
  /(enable|turn on|activate|allow)\s+javascript|javascript\s+(is\s+)?(required|disabled|needed|must be enabled|is not enabled)|requires?\s+javascript|need(s)?\s+javascript/i;
const APP_ROOTS = '#root, #app, #__next, #__nuxt, #___gatsby, [data-reactroot], app-root, [ng-app], #svelte';

/**
 * Whether the static HTML looks like the shell of a page its scripts build: almost no text but (external or
 * large) scripts, a
 * `<noscript>` asking for JavaScript on a page with little text, or an empty application root.
 */
export function looksJavaScriptBuilt(document: DomDocument): boolean {
  const body = document.body;
  if (!body) return true;
  // Scripts that could build a page: external ones and large inline ones (bundles, serialized state).
  const scripts = [...document.querySelectorAll('script')].filter((script) => {
    const type = (script.getAttribute('type') ?? '').toLowerCase();
    if (type && !/^(module|text\/javascript|application\/javascript)$/.test(type)) return false;
    return script.hasAttribute('src') || (script.textContent ?? '').length > 1000;
  }).length;
  const hint = [...document.querySelectorAll('noscript')].some((n) => NOSCRIPT_HINT.test(n.textContent ?? ''));
  const copy = body.cloneNode(true) as typeof body;
  for (const element of [...copy.querySelectorAll(NEVER_CONTENT)]) element.remove();
  const textLength = collapsedLength(copy.textContent);
  const emptyRoot = [...document.querySelectorAll(APP_ROOTS)].some((root) => collapsedLength(root.textContent) < 50);
  if (scripts > 0 && textLength < 200) return true;
  if (hint && textLength < 2000) return true;
  return emptyRoot && scripts > 0 && textLength < 1000;
}
