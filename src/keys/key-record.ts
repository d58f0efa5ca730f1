import type { KeyEnvironment, KeyScope } from './events/key.events.js';

/** What the data plane needs to know about a presented API key. */
export interface KeyRecord {
  readonly keyId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly environment: KeyEnvironment;
  readonly scopes: readonly KeyScope[];
  readonly depthLimit: 'basic' | null;
  readonly status: 'active' | 'revoked';
  /** Credits the key may spend per month (its environment's), and its project's live keys together; null: none. */
  readonly budgets: { readonly key: number | null; readonly project: number | null };
}
