import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, WrongExpectedVersionError } from '../../event-store/event-store.port.js';
import { normalizeEmail } from '../../common/email-address.js';
import { type UserRegistered, userEmailStream } from '../events/user.events.js';
import { RegisterUserCommand, type RegisteredUser } from './register-user.command.js';

@CommandHandler(RegisterUserCommand)
export class RegisterUserHandler implements ICommandHandler<RegisterUserCommand, RegisteredUser> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ email, actor }: RegisterUserCommand): Promise<RegisteredUser> {
    const normalized = normalizeEmail(email);
    const stream = userEmailStream(normalized);
    const existing = await this.existing(stream);
    if (existing) return existing;
    const event: UserRegistered = { type: 'UserRegistered', data: { user_id: randomUUID(), email: normalized } };
    try {
      const result = await this.store.appendToStream(stream, [toNewEvent(event, actor)], 'no_stream');
      return { userId: event.data.user_id, email: normalized, created: true, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      const raced = await this.existing(stream);
      if (!raced) throw error;
      return raced;
    }
  }

  private async existing(stream: string): Promise<RegisteredUser | undefined> {
    const [first] = await this.store.readStream(stream, { maxCount: 1 });
    if (!first) return undefined;
    const data = first.data as unknown as UserRegistered['data'];
    return { userId: data.user_id, email: data.email, created: false, position: first.position };
  }
}
