/**
 * What a command group boots: the control plane only (stores, read models, command handlers: starts at once), or
 * the whole application (fetching, extraction, the search index).
 */
export type CommandScope = 'control-plane' | 'application';
