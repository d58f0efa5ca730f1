import type { DomainEvent } from '../../event-store/domain-event.js';

export const projectStream = (projectId: string) => `project-${projectId}`;

export type ProjectCreated = DomainEvent<'ProjectCreated', { project_id: string; org_id: string; name: string }>;

export type ProjectRenamed = DomainEvent<'ProjectRenamed', { project_id: string; org_id: string; name: string }>;

/** The project's monthly credit limit (its live keys' credits together), or null for none. */
export type ProjectBudgetSet = DomainEvent<
  'ProjectBudgetSet',
  { project_id: string; org_id: string; monthly_credit_limit: number | null }
>;

export type ProjectEvent = ProjectCreated | ProjectRenamed | ProjectBudgetSet;
