import type { BudgetScope } from './quota-gate.js';
import { leaseJournalCall } from './lease-ids.js';

/** The size of an account's first lease (doubled while leases are asked for quickly). */
export const INITIAL_LEASE = 8;

/** A node's lease of one counter: what it may still reserve in memory, and what its calls hold. */
export class Lease {
  seq = 0;
  /** Reserved by calls still running (their charge not settled, or its outcome not known yet). */
  holding = 0;
  retired = false;
  returned = false;
  constructor(
    readonly id: string,
    readonly account: Account,
    /** Granted, less what was given back. */
    public size: number,
    public available: number,
    readonly allowance: number,
    readonly expiresAt: number,
  ) {}

  get journalField(): string {
    return `${leaseJournalCall(this.id)}|${this.account.leasesKey}`;
  }
}

export interface Refill {
  readonly granted: boolean;
  /** The least a call had to fit for this refill (a refusal answers every call of at least that amount). */
  readonly amount: number;
  readonly used: number;
}

/** A counter this node leases from (an organization's month, or a budget's), with its leases and their refill. */
export class Account {
  leases: Lease[] = [];
  refill: Promise<Refill> | null = null;
  want = INITIAL_LEASE;
  lastGrantAt = 0;
  /** The charged total, as of this node's last look at Redis. */
  lastUsed = 0;
  /** Credits of this node's durable charges that Redis has not counted yet (their settlement is queued). */
  unsettled = 0;
  constructor(
    readonly orgId: string,
    readonly quotaKey: string,
    readonly leasesKey: string,
    /** A key's or project's budget (undefined: the organization's limit). */
    readonly budget: BudgetScope | undefined,
  ) {}
}
