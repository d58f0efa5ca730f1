import { ApiError, type Organization, type User, api } from './api.js';
import { alertsPage, webhookPage } from './alerts-page.js';
import { type Context, base, navLink } from './context.js';
import { field, h } from './dom.js';
import { keyPage } from './key-page.js';
import { keysPage } from './keys-page.js';
import { ledgerPage } from './ledger-page.js';
import { statementPage, statementsPage } from './statements-page.js';
import { membersPage } from './members-page.js';
import { organizationsPage, projectsPage } from './org-pages.js';
import { requestsPage } from './requests-page.js';
import { requestPage } from './request-page.js';
import { auditPage } from './audit-page.js';
import { usagePage } from './usage-page.js';

const root = document.getElementById('app')!;
let user: User | null | undefined; // undefined: not asked yet
let orgs: Organization[] = [];
let rendering = 0;

function currentPath(): string {
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : location.pathname;
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  return path.slice(0, end) || '/';
}

function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = base + path;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  void render();
}

/** Same-origin links inside the dashboard navigate without a page load (new tabs and modified clicks still work). */
document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.('a[data-nav]');
  if (!(link instanceof HTMLAnchorElement)) return;
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  event.preventDefault();
  history.pushState(null, '', link.href);
  void render();
});
window.addEventListener('popstate', () => void render());

/**
 * Form errors are shown the same way everywhere: inline under the control, announced, never as a browser bubble.
 * 'invalid' fires on each control that fails its constraints when a form is submitted.
 */
document.addEventListener(
  'invalid',
  (event) => {
    const control = event.target;
    if (!(control instanceof HTMLInputElement || control instanceof HTMLSelectElement)) return;
    // A form marked novalidate checks its fields itself and says what is wrong in its own words.
    if (control.form?.noValidate) return;
    event.preventDefault();
    control.setAttribute('aria-invalid', 'true');
    const id = `${control.id || control.name}-error`;
    let message = document.getElementById(id);
    if (!message) {
      message = h('p', { id, class: 'form-error field-error', role: 'alert' });
      control.insertAdjacentElement('afterend', message);
      control.setAttribute('aria-describedby', `${control.getAttribute('aria-describedby') ?? ''} ${id}`.trim());
    }
    message.textContent = control.validationMessage;
    const first = control.form?.querySelector<HTMLElement>(':invalid');
    if (first === control) control.focus();
  },
  true,
);
document.addEventListener('input', (event) => {
  const control = event.target;
  if (!(control instanceof HTMLInputElement) || control.getAttribute('aria-invalid') !== 'true') return;
  if (!control.checkValidity()) return;
  control.removeAttribute('aria-invalid');
  const message = document.getElementById(`${control.id || control.name}-error`);
  if (message) message.textContent = '';
});

function statusLine(): HTMLElement {
  return h('p', { id: 'flash', class: 'flash', role: 'status', 'aria-live': 'polite' });
}

let pending: { message: string; kind: 'ok' | 'error'; at: number } | undefined;

/** Shows a message in the status line now, or on the page a navigation is about to show. */
function flash(message: string, kind: 'ok' | 'error' = 'ok'): void {
  pending = { message, kind, at: Date.now() };
  const line = document.getElementById('flash');
  if (!line) return;
  line.textContent = message;
  line.className = `flash flash-${kind}`;
}

/**
 * Swaps the main region's content and moves focus to its heading, as a page load would. A message flashed before a
 * navigation waits for the page itself (`interim`: the loading state in between leaves it be).
 */
function show(page: Node, options: { focus?: boolean; interim?: boolean } = {}): void {
  const main = document.getElementById('main');
  if (!main) return;
  const line = statusLine();
  main.replaceChildren(line, page);
  if (options.interim) return;
  if (pending && Date.now() - pending.at < 3000) {
    const { message, kind } = pending;
    // After the page is in place, so that the live region announces it.
    window.setTimeout(() => {
      line.textContent = message;
      line.className = `flash flash-${kind}`;
    }, 30);
  }
  pending = undefined;
  const heading = main.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    document.title = `${heading.textContent ?? 'Dashboard'} · Search Ledger`;
    if (options.focus !== false) heading.focus();
  }
}

function layout(signedIn: boolean, org?: Organization, active?: string): void {
  const header = h(
    'header',
    { class: 'topbar' },
    h('a', { class: 'skip-link', href: '#main' }, 'Skip to content'),
    h(
      'div',
      { class: 'topbar-inner' },
      navLink('/', [h('img', { src: `${base}/assets/icon.svg`, alt: '', width: 24, height: 24 }), ' Search Ledger'], {
        class: 'brand',
      }),
      signedIn ? orgSwitcher(org) : null,
      signedIn
        ? h(
            'div',
            { class: 'account' },
            h('span', { class: 'email' }, user?.email ?? ''),
            h('button', { type: 'button', class: 'button secondary', onclick: () => void signOut() }, 'Sign out'),
          )
        : null,
    ),
    signedIn && org
      ? h(
          'nav',
          { class: 'tabs', 'aria-label': 'Organization' },
          h(
            'ul',
            {},
            [
              ['usage', 'Usage'],
              ['keys', 'API keys'],
              ['projects', 'Projects'],
              ['ledger', 'Ledger'],
              ['statements', 'Statements'],
              ['requests', 'Requests'],
              ['alerts', 'Alerts'],
              ['members', 'Members and plan'],
              ...(org.role === 'member' ? [] : [['audit', 'Audit log']]),
            ].map(([page, label]) =>
              h(
                'li',
                {},
                navLink(`/orgs/${org.id}/${page}`, label!, page === active ? { 'aria-current': 'page' } : {}),
              ),
            ),
          ),
        )
      : null,
  );
  const main = h('main', { id: 'main', tabindex: '-1' });
  const footer = h('footer', { class: 'footer' }, h('p', {}, 'Search Ledger API · credits metered by the ledger'));
  root.replaceChildren(header, main, footer);
  // On a phone the tabs scroll sideways: the current one is brought into view.
  const current = header.querySelector<HTMLElement>('.tabs [aria-current="page"]');
  const tabs = current?.closest('ul');
  if (current && tabs && tabs.scrollWidth > tabs.clientWidth) {
    const offset = current.getBoundingClientRect().left - tabs.getBoundingClientRect().left;
    tabs.scrollLeft += offset - (tabs.clientWidth - current.offsetWidth) / 2;
  }
}

function orgSwitcher(org?: Organization): Node {
  const select = h(
    'select',
    {
      onchange: (event: Event) => {
        const value = (event.target as HTMLSelectElement).value;
        navigate(value === '' ? '/orgs' : `/orgs/${value}/usage`);
      },
    },
    org ? null : h('option', { value: '', selected: true }, 'Choose…'),
    orgs.map((o) => h('option', { value: o.id, selected: o.id === org?.id }, o.name)),
    h('option', { value: '' }, 'All organizations…'),
  );
  return h('div', { class: 'switcher' }, field('Organization', select));
}

async function signOut(): Promise<void> {
  await fetch(`${base}/sign-out`, { method: 'POST', credentials: 'same-origin' }).catch(() => undefined);
  user = null;
  orgs = [];
  navigate('/', { replace: true });
  flash('You are signed out.');
}

async function loadSession(): Promise<void> {
  try {
    const session = await api<{ user: User }>('GET', '/auth/session');
    user = session.user;
    orgs = (await api<{ organizations: Organization[] }>('GET', '/orgs')).organizations;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) user = null;
    else throw error;
  }
}

// ---- signed-out pages ------------------------------------------------------------------------------------------

function signInPage(message?: string): Node {
  const email = h('input', { type: 'email', name: 'email', required: true, autocomplete: 'email', maxlength: 254 });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'button' }, 'Email me a sign-in link');
  const form = h(
    'form',
    {
      class: 'card narrow',
      novalidate: true,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        if (!email.checkValidity()) {
          error.textContent = 'Enter your e-mail address, like you@example.com.';
          email.setAttribute('aria-invalid', 'true');
          email.focus();
          return;
        }
        email.removeAttribute('aria-invalid');
        submit.disabled = true;
        submit.textContent = 'Sending…';
        try {
          await api('POST', '/auth/magic-link', { email: email.value });
          navigate(`/check-email?email=${encodeURIComponent(email.value.trim())}`);
        } catch (e) {
          error.textContent =
            e instanceof ApiError && e.status === 429
              ? 'Too many sign-in requests. Wait a minute and try again.'
              : (e as Error).message;
          submit.disabled = false;
          submit.textContent = 'Email me a sign-in link';
        }
      },
    },
    h('h1', {}, 'Sign in'),
    message ? h('p', { class: 'notice' }, message) : null,
    h('p', {}, 'We e-mail you a link that signs you in. No password needed.'),
    field('E-mail address', email),
    error,
    submit,
  );
  return form;
}

function checkEmailPage(address: string): Node {
  return h(
    'section',
    { class: 'card narrow', 'aria-labelledby': 'check-title' },
    h('h1', { id: 'check-title' }, 'Check your mail'),
    h(
      'p',
      {},
      'If ',
      h('strong', {}, address || 'your address'),
      ' can sign in, a sign-in link is on its way. Open it on this device: it works once, for 15 minutes.',
    ),
    h('p', {}, 'Nothing arrived after a few minutes? Look in your spam folder, or ask for a new link.'),
    navLink('/', 'Use another address or send a new link', { class: 'button secondary' }),
  );
}

const LINK_PROBLEMS: Record<string, [string, string]> = {
  expired: [
    'This sign-in link has expired',
    'Sign-in links work for 15 minutes. Request a new one and open it within that time.',
  ],
  used: [
    'This sign-in link has already been used',
    'Each link signs you in once. If that was not you, nothing is lost: request a new link.',
  ],
  invalid: [
    'This sign-in link is not valid',
    'The link may have been cut short when it was copied. Request a new one.',
  ],
};

function linkProblemPage(reason: string): Node {
  const [title, text] = LINK_PROBLEMS[reason] ?? LINK_PROBLEMS.invalid!;
  return h(
    'section',
    { class: 'card narrow', 'aria-labelledby': 'problem-title' },
    h('h1', { id: 'problem-title' }, title),
    h('p', {}, text),
    navLink('/', 'Request a new link', { class: 'button' }),
  );
}

async function redeem(token: string): Promise<void> {
  layout(false);
  show(h('section', { class: 'card narrow' }, h('h1', {}, 'Signing you in…')), { focus: false });
  // The token leaves the address bar (and the history) at once, whatever happens next.
  history.replaceState(null, '', `${base}/sign-in`);
  try {
    const result = await api<{ user: User }>('POST', `${base}/session`, { token });
    user = result.user;
    orgs = (await api<{ organizations: Organization[] }>('GET', '/orgs')).organizations;
    navigate(afterSignIn(), { replace: true });
    flash(`Signed in as ${result.user.email}.`);
  } catch (error) {
    const reason = error instanceof ApiError ? String(error.body?.reason ?? 'invalid') : 'invalid';
    if (error instanceof ApiError && error.status === 0) {
      show(h('section', { class: 'card narrow' }, h('h1', {}, 'Could not sign in'), h('p', {}, error.message)));
      return;
    }
    history.replaceState(null, '', `${base}/link-problem?reason=${encodeURIComponent(reason)}`);
    show(linkProblemPage(reason));
  }
}

// ---- the router ------------------------------------------------------------------------------------------------

async function render(): Promise<void> {
  const ticket = ++rendering;
  const path = currentPath();
  const query = new URLSearchParams(location.search);
  if (path === '/sign-in') {
    const token = query.get('token');
    if (token) return redeem(token);
  }
  try {
    if (user === undefined) await loadSession();
  } catch (error) {
    layout(false);
    show(
      h(
        'section',
        { class: 'card narrow' },
        h('h1', {}, 'The dashboard is unavailable'),
        h('p', {}, (error as Error).message),
        retryButton(),
      ),
    );
    return;
  }
  if (ticket !== rendering) return;
  if (!user) {
    layout(false);
    if (path === '/check-email') show(checkEmailPage(query.get('email') ?? ''));
    else if (path === '/link-problem') show(linkProblemPage(query.get('reason') ?? 'invalid'));
    else {
      rememberReturn(path, location.search);
      show(signInPage(path === '/' || path === '/sign-in' ? undefined : 'Sign in to continue.'));
    }
    return;
  }
  if (path === '/' || path === '/sign-in' || path === '/check-email' || path === '/link-problem') {
    navigate(orgs[0] ? `/orgs/${orgs[0].id}/usage` : '/orgs', { replace: true });
    return;
  }
  const match = /^\/orgs\/([^/]+)(?:\/([a-z]+)(?:\/([^/]+))?)?$/.exec(path);
  const ctx = (org: Organization | undefined): Context => ({
    user: user!,
    orgs,
    org,
    query,
    navigate,
    flash,
    refreshOrgs: async () => {
      orgs = (await api<{ organizations: Organization[] }>('GET', '/orgs')).organizations;
    },
  });
  if (path === '/orgs') {
    layout(true);
    show(await organizationsPage(ctx(undefined)));
    return;
  }
  if (!match) {
    layout(true);
    show(notFound('There is no such page in the dashboard.'));
    return;
  }
  const orgId = decodeURIComponent(match[1]!);
  const page = match[2] ?? 'usage';
  const org = orgs.find((o) => o.id === orgId);
  layout(true, org, page);
  if (!org) {
    // Not one of the caller's organizations: the API would answer 404 too, and says no more than that.
    show(notFound('This organization does not exist, or you are not one of its members.'));
    return;
  }
  const pages: Record<string, (c: Context) => Promise<Node>> = {
    usage: usagePage,
    keys: keysPage,
    projects: projectsPage,
    ledger: ledgerPage,
    statements: statementsPage,
    requests: requestsPage,
    alerts: alertsPage,
    members: membersPage,
    audit: auditPage,
  };
  // One page shows a single thing of a list: a key (/orgs/{org}/keys/{key_id}), a request (…/requests/{request_id}),
  // a statement (…/statements/{month}).
  const item = match[3] === undefined ? undefined : decodeURIComponent(match[3]);
  const items: Record<string, (c: Context, item: string) => Promise<Node>> = {
    keys: keyPage,
    requests: requestPage,
    statements: statementPage,
    alerts: webhookPage,
  };
  const one = items[page];
  const build = item === undefined ? pages[page] : one ? (c: Context) => one(c, item) : undefined;
  if (!build) {
    show(notFound('There is no such page in the dashboard.'));
    return;
  }
  show(loading(), { focus: false, interim: true });
  try {
    const node = await build(ctx(org));
    if (ticket === rendering) show(node);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      user = null;
      navigate('/', { replace: true });
      return;
    }
    if (error instanceof ApiError && error.status === 404)
      show(notFound('This organization does not exist, or you are not one of its members.'));
    else
      show(
        h(
          'section',
          { class: 'card narrow' },
          h('h1', {}, 'Something went wrong'),
          h('p', { role: 'alert' }, (error as Error).message),
          retryButton(),
        ),
      );
  }
}

/** What the main region shows while a page's data loads (instead of an empty page). */
function loading(): Node {
  return h(
    'section',
    { class: 'loading', 'aria-busy': 'true' },
    h('p', { role: 'status' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Loading…'),
  );
}

function retryButton(): Node {
  return h('button', { type: 'button', class: 'button', onclick: () => void render() }, 'Try again');
}

// ---- deep links opened while signed out ----------------------------------------------------------------------

const RETURN_TO = 'dashboard-return-to';
const RETURNABLE = /^\/orgs\/[0-9a-f-]{36}(?:\/[a-z]+(?:\/[0-9a-f-]{36})?)?$/;

/** Remembers where a signed-out visitor was going (the sign-in link may open in another tab: localStorage). */
function rememberReturn(path: string, search: string): void {
  if (RETURNABLE.test(path)) localStorage.setItem(RETURN_TO, path + search);
}

/** Where to go after signing in: the remembered page of one of the user's organizations, once; else Usage. */
function afterSignIn(): string {
  const remembered = localStorage.getItem(RETURN_TO);
  localStorage.removeItem(RETURN_TO);
  const path = remembered?.split('?')[0] ?? '';
  const orgId = path.split('/')[2];
  if (remembered && RETURNABLE.test(path) && orgs.some((o) => o.id === orgId)) return remembered;
  return orgs[0] ? `/orgs/${orgs[0].id}/usage` : '/orgs';
}

function notFound(text: string): Node {
  return h(
    'section',
    { class: 'card narrow' },
    h('h1', {}, 'Not found'),
    h('p', {}, text),
    navLink('/orgs', 'Your organizations', { class: 'button secondary' }),
  );
}

void render();
