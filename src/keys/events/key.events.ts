import type { DomainEvent } from '../../event-store/domain-event.js';

export const keyStream = (keyId: string) => `key-${keyId}`;

export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];

/** Scopes are per data-plane operation. */
export const KEY_SCOPES = ['search', 'verticals', 'extract', 'map', 'crawl', 'mcp'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

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

export type KeyEvent = KeyCreated | KeyRenamed | KeyRevoked;
