import { Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ReadYourWrites } from '../event-store/read-your-writes.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { toNewEvent } from '../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, WrongExpectedVersionError } from '../event-store/event-store.port.js';
import { CreateKeyCommand } from '../keys/commands/create-key.command.js';
import { KEY_SCOPES } from '../keys/events/key.events.js';
import { CreateOrganizationCommand } from '../organizations/commands/create-organization.command.js';
import { planLimits } from '../organizations/plans.js';
import { RegisterUserCommand } from '../users/commands/register-user.command.js';

export const DEMO_SEED_STREAM = 'system-demo_seed';
export const DEMO_EMAIL = 'demo@localhost';

/**
 * First start of the embedded mode: a demo organization, project and live key with every scope. The key is printed
 * once, as `demo api key: <key>`; later starts find the seed stream and print nothing.
 */
@Injectable()
export class DemoSeedService {
  private readonly logger = new Logger('DemoSeed');

  constructor(
    private readonly commands: CommandBus,
    private readonly readYourWrites: ReadYourWrites,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async seedOnce(): Promise<string | null> {
    if (!this.config.demoSeed) return null;
    if ((await this.store.readStream(DEMO_SEED_STREAM, { maxCount: 1 })).length > 0) return null;
    const actor = { type: 'system', id: 'demo-seed' } as const;
    const user = await this.commands.execute(new RegisterUserCommand(DEMO_EMAIL, actor));
    const org = await this.commands.execute(
      new CreateOrganizationCommand(
        'Demo organization',
        'free',
        planLimits('free'),
        { userId: user.userId, email: user.email },
        actor,
      ),
    );
    const key = await this.commands.execute(
      new CreateKeyCommand(org.orgId, org.defaultProjectId, 'Demo key', 'live', [...KEY_SCOPES], null, actor),
    );
    try {
      await this.store.appendToStream(
        DEMO_SEED_STREAM,
        [
          toNewEvent(
            { type: 'DemoSeeded', data: { org_id: org.orgId, project_id: org.defaultProjectId, key_id: key.keyId } },
            actor,
          ),
        ],
        'no_stream',
      );
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return null;
      throw error;
    }
    await this.readYourWrites.waitFor(key.position);
    this.logger.log(`demo organization ${org.orgId} created for ${DEMO_EMAIL}`);
    return key.plaintext;
  }
}
