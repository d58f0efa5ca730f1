import type { DomainEvent } from '../../event-store/domain-event.js';
import type { PlanLimits } from '../plans.js';

export const organizationStream = (orgId: string) => `organization-${orgId}`;

export type MemberRole = 'owner' | 'admin' | 'member';

export type OrganizationCreated = DomainEvent<
  'OrganizationCreated',
  { org_id: string; name: string; plan: string; created_by: string | null } & PlanLimits
>;

/** A new plan or allowance; it applies from the moment of the event on. */
export type PlanChanged = DomainEvent<'PlanChanged', { org_id: string; plan: string } & PlanLimits>;

export type MemberAdded = DomainEvent<
  'MemberAdded',
  { org_id: string; user_id: string; email: string; role: MemberRole }
>;

export type MemberRemoved = DomainEvent<'MemberRemoved', { org_id: string; user_id: string }>;

export type OrganizationEvent = OrganizationCreated | PlanChanged | MemberAdded | MemberRemoved;
