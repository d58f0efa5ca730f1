import type { DomainEvent } from '../../event-store/domain-event.js';

export const keyStream = (keyId: string) => `key-${keyId}`;

export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

/** Scopes are per data-plane operation. */
export const KEY_SCOPES = ['search', 'verticals', 'extract', 'map', 'crawl', 'mcp', 'research'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** Every scope that existed before `research` was added: a key created with all of them has `research` too. */
export const SCOPES_BEFORE_RESEARCH: readonly KeyScope[] = ['search', 'verticals', 'extract', 'map', 'crawl', 'mcp'];

/**
 * The scopes a key holds. Keys created before the `research` scope existed with every scope of their day (the
 * default, and the demo key) hold `research` as well; keys given a narrower list do not.
 */
export function effectiveScopes<S extends string>(scopes: readonly S[]): (S | 'research')[] {
  const all = SCOPES_BEFORE_RESEARCH.every((scope) => (scopes as readonly string[]).includes(scope));
  return all && !(scopes as readonly string[]).includes('research') ? [...scopes, 'research'] : [...scopes];
}

export type KeyCreated = DomainEvent<
  'KeyCreated',
  {
    key_id: string;
    org_id: string;
    project_id: string;
    name: string;
    environment: KeyEnvironment;
    /** The displayable start of the key, e.g. `sk_live_Ab3dE9`. */
    prefix: string;
    /** Hex SHA-256 of the full plaintext key; the plaintext itself is never stored. */
    key_hash: string;
    scopes: KeyScope[];
    /** 'basic' limits search_depth and extract_depth to basic; null allows advanced. */
    depth_limit: 'basic' | null;
  }
>;

export type KeyRenamed = DomainEvent<'KeyRenamed', { key_id: string; org_id: string; name: string }>;

export type KeyRevoked = DomainEvent<'KeyRevoked', { key_id: string; org_id: string }>;

/** The key's own monthly credit limit (its environment's credits), or null for none. */
export type KeyBudgetSet = DomainEvent<
  'KeyBudgetSet',
  { key_id: string; org_id: string; monthly_credit_limit: number | null }
>;

export type KeyEvent = KeyCreated | KeyRenamed | KeyRevoked | KeyBudgetSet;
