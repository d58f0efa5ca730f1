import type { Queryable } from '../../src/database/database.js';
import { occurredAt } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { UserRegistered } from '../../src/users/events/user.events.js';
import type { Projector } from '../projector.js';

export const usersProjector: Projector = {
  name: 'users',
  tables: ['users'],
  eventTypes: ['UserRegistered'],
  async apply(tx: Queryable, event: RecordedEvent) {
    const data = event.data as unknown as UserRegistered['data'];
    await tx.query('INSERT INTO users (user_id, email, registered_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      data.user_id,
      data.email,
      occurredAt(event),
    ]);
  },
};
