import type { DomainEvent } from '../../event-store/domain-event.js';
import type { PlanLimits } from '../plans.js';

export const organizationStream = (orgId: string) => `organization-${orgId}`;

export type MemberRole = 'owner' | 'admin' | 'member';

export type OrganizationCreated = DomainEvent<
  'OrganizationCreated',
  { org_id: string; name: string; plan: string; created_by: string | null } & PlanLimits
>;

/**
 * Pay-as-you-go past the allowance and the grants: at most `credit_cap` credits a month, at `price_per_credit` (a
 * decimal string, e.g. "0.008", in the operator's currency).
 */
export interface Overage {
  readonly credit_cap: number;
  readonly price_per_credit: string;
}

/**
 * A new plan or allowance; it applies from the moment of the event on. `overage` absent or null: none (events
 * written before overage existed carry none).
 */
export type PlanChanged = DomainEvent<
  'PlanChanged',
  { org_id: string; plan: string; overage?: Overage | null } & PlanLimits
>;

/**
 * Credits an operator grants to an organization: once (they last until spent or expired, across months) or every
 * month (`credits` each calendar month from the grant's month on, until it expires). Its time is the event's.
 */
export type CreditsGranted = DomainEvent<
  'CreditsGranted',
  {
    org_id: string;
    grant_id: string;
    credits: number;
    recurrence: 'once' | 'monthly';
    /** ISO 8601; null: it does not expire. Its unused part stops counting at that instant. */
    expires_at: string | null;
    note: string | null;
  }
>;

/** A grant ends now, as if it expired: what was spent from it stays spent, the rest stops counting. */
export type CreditGrantRevoked = DomainEvent<'CreditGrantRevoked', { org_id: string; grant_id: string }>;

export type MemberAdded = DomainEvent<
  'MemberAdded',
  { org_id: string; user_id: string; email: string; role: MemberRole }
>;

export type MemberRemoved = DomainEvent<'MemberRemoved', { org_id: string; user_id: string }>;

export type OrganizationEvent =
  OrganizationCreated | PlanChanged | MemberAdded | MemberRemoved | CreditsGranted | CreditGrantRevoked;
