import { randomUUID } from 'node:crypto';
import { Inject, NotFoundException } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore } from '../../event-store/event-store.port.js';
import { loadStreamState } from '../../event-store/stream-state.js';
import { errorBody } from '../../http/error-body.js';
import { projectStream } from '../../projects/events/project.events.js';
import { evolveProject, initialProject } from '../../projects/project.state.js';
import { generateApiKey } from '../api-key-secret.js';
import { type KeyBudgetSet, type KeyCreated, keyStream } from '../events/key.events.js';
import { CreateKeyCommand, type CreatedKey } from './create-key.command.js';

@CommandHandler(CreateKeyCommand)
export class CreateKeyHandler implements ICommandHandler<CreateKeyCommand, CreatedKey> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute(command: CreateKeyCommand): Promise<CreatedKey> {
    const project = await loadStreamState(this.store, projectStream(command.projectId), initialProject, evolveProject);
    if (!project.state.exists || project.state.orgId !== command.orgId) {
      throw new NotFoundException(errorBody('project not found in this organization'));
    }
    const keyId = randomUUID();
    const key = generateApiKey(this.config.apiKeyPrefix, command.environment);
    const event: KeyCreated = {
      type: 'KeyCreated',
      data: {
        key_id: keyId,
        org_id: command.orgId,
        project_id: command.projectId,
        name: command.name,
        environment: command.environment,
        prefix: key.displayPrefix,
        key_hash: key.hash,
        scopes: [...command.scopes],
        depth_limit: command.depthLimit,
      },
    };
    const budget: KeyBudgetSet | null =
      command.monthlyCreditLimit === null
        ? null
        : {
            type: 'KeyBudgetSet',
            data: { key_id: keyId, org_id: command.orgId, monthly_credit_limit: command.monthlyCreditLimit },
          };
    const events = [toNewEvent(event, command.actor), ...(budget ? [toNewEvent(budget, command.actor)] : [])];
    const result = await this.store.appendToStream(keyStream(keyId), events, 'no_stream');
    return { keyId, plaintext: key.plaintext, position: result.position };
  }
}
