import type { Organization, User } from './api.js';
import { type Child, h } from './dom.js';

/** Where the server mounts the dashboard (DASHBOARD_URL's path), from the page shell. */
export const base = document.querySelector<HTMLMetaElement>('meta[name="dashboard-base"]')?.content ?? '/dashboard';

/** What every page gets: who is signed in, the organization in view, and how to move around. */
export interface Context {
  readonly user: User;
  readonly orgs: Organization[];
  readonly org: Organization | undefined;
  readonly query: URLSearchParams;
  navigate(path: string, options?: { replace?: boolean }): void;
  refreshOrgs(): Promise<void>;
  /** A message for everyone: shown in the page's status line and announced to screen readers. */
  flash(message: string, kind?: 'ok' | 'error'): void;
}

/** A link inside the dashboard: the router follows it without a page load. */
export const navLink = (path: string, label: Child, attrs: Record<string, string> = {}) =>
  h('a', { href: base + path, 'data-nav': '', ...attrs }, label);
