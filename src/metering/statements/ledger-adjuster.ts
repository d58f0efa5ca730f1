import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Database } from '../../database/database.js';
import { type Actor, toNewEvent } from '../../event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position } from '../../event-store/event-store.port.js';
import { billingMonth } from '../counter-keys.js';
import { type LedgerAdjusted, adjustmentsStream } from './statement.events.js';
import { StatementCloser } from './statement-closer.js';

export class AdjustmentRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdjustmentRefusedError';
  }
}

/**
 * An operator's correction of a closed month (LedgerAdjusted): booked in the month open now, naming the month it
 * corrects, with a reason and the operator as actor. The closed month's statement stays as issued.
 */
@Injectable()
export class LedgerAdjuster {
  constructor(
    private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly closer: StatementCloser,
  ) {}

  async adjust(
    orgId: string,
    correctsMonth: string,
    credits: number,
    reason: string,
    actor: Actor,
  ): Promise<{ adjustment: LedgerAdjusted['data']; position: Position }> {
    const org = await this.db.query('SELECT 1 FROM organizations WHERE org_id = $1', [orgId]);
    if (org.rows.length === 0) throw new AdjustmentRefusedError(`organization ${orgId} not found`);
    if (!(await this.closer.isClosed(orgId, correctsMonth))) {
      throw new AdjustmentRefusedError(
        `${correctsMonth} is not closed for organization ${orgId}: only a closed month is corrected by an adjustment`,
      );
    }
    const adjustment: LedgerAdjusted['data'] = {
      adjustment_id: randomUUID(),
      org_id: orgId,
      month: billingMonth(new Date()),
      corrects_month: correctsMonth,
      credits,
      reason,
    };
    const event: LedgerAdjusted = { type: 'LedgerAdjusted', data: adjustment };
    const result = await this.store.appendToStream(adjustmentsStream(orgId), [toNewEvent(event, actor)], 'any');
    return { adjustment, position: result.position };
  }
}
