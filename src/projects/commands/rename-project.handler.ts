import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { type ProjectRenamed, projectStream } from '../events/project.events.js';
import { loadOrgProject } from './load-org-project.js';
import { RenameProjectCommand } from './rename-project.command.js';

@CommandHandler(RenameProjectCommand)
export class RenameProjectHandler implements ICommandHandler<RenameProjectCommand, { position: Position | null }> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute(command: RenameProjectCommand): Promise<{ position: Position | null }> {
    const { state, expectedRevision } = await loadOrgProject(this.store, command.orgId, command.projectId);
    if (state.name === command.name) return { position: null };
    const event: ProjectRenamed = {
      type: 'ProjectRenamed',
      data: { project_id: command.projectId, org_id: command.orgId, name: command.name },
    };
    const result = await this.store.appendToStream(
      projectStream(command.projectId),
      [toNewEvent(event, command.actor)],
      expectedRevision,
    );
    return { position: result.position };
  }
}
