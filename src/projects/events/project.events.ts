import type { DomainEvent } from '../../event-store/domain-event.js';

export const projectStream = (projectId: string) => `project-${projectId}`;

export type ProjectCreated = DomainEvent<'ProjectCreated', { project_id: string; org_id: string; name: string }>;

export type ProjectRenamed = DomainEvent<'ProjectRenamed', { project_id: string; org_id: string; name: string }>;

export type ProjectEvent = ProjectCreated | ProjectRenamed;
