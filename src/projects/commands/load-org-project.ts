import { NotFoundException } from '@nestjs/common';
import type { EventStore } from '../../event-store/event-store.port.js';
import { type StreamState, loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { isUuid } from '../../organizations/org-access.service.js';
import { projectStream } from '../events/project.events.js';
import { type ProjectState, evolveProject, initialProject } from '../project.state.js';

/** The project's current state; a project of another organization is indistinguishable from a missing one. */
export async function loadOrgProject(
  store: EventStore,
  orgId: string,
  projectId: string,
): Promise<StreamState<ProjectState>> {
  // Streams are named by the id as the API writes it (lowercase), as for organizations.
  if (!isUuid(projectId) || projectId !== projectId.toLowerCase()) throw notFound();
  const loaded = await loadStreamState(store, projectStream(projectId), initialProject, evolveProject);
  if (!loaded.state.exists || loaded.state.orgId !== orgId) throw notFound();
  return loaded;
}

const notFound = () => new NotFoundException(errorBody('project not found'));
