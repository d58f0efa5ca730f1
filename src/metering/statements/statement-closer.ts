import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { Database } from '../../database/database.js';
import { type Actor, toNewEvent } from '../../event-store/domain-event.js';
import {
  EVENT_STORE,
  type EventStore,
  type Position,
  START,
  WrongExpectedVersionError,
  isAtOrAfter,
} from '../../event-store/event-store.port.js';
import { ReadModelProgress } from '../../event-store/read-model-progress.port.js';
import { billingMonth } from '../counter-keys.js';
import { readMonthEntries } from './statement-entries.js';
import { closesAt, summarizeStatement } from './statement-summary.js';
import { type StatementIssued, statementStream } from './statement.events.js';

export type CloseOutcome =
  | { readonly org_id: string; readonly month: string; readonly outcome: 'closed'; readonly position: Position }
  | { readonly org_id: string; readonly month: string; readonly outcome: 'already_closed' };

export class MonthNotClosableError extends Error {
  constructor(month: string, at: Date) {
    super(`${month} closes at ${at.toISOString()} (its end plus the grace period), not before`);
    this.name = 'MonthNotClosableError';
  }
}

/**
 * Closes an organization's month into a statement (StatementIssued). The read models are first brought up to
 * every event stored when the close begins, after the month's end and grace period: every charge appended in the
 * month is then in them. The statement is their sum at their checkpoint, the position it covers; it is appended with
 * `no_stream` to the month's own stream, so a second close (another node, the timer and an operator at once) fails
 * harmlessly. A charge of the month after that position is a late charge (see statements.ts in the projections).
 */
@Injectable()
export class StatementCloser {
  constructor(
    private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ReadModelProgress,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The months that may close now: those that ended at least the grace period ago. */
  isClosable(month: string, now = new Date()): boolean {
    return closesAt(month, this.config.statementGraceDays) <= now;
  }

  /** The latest month that may close now. */
  latestClosableMonth(now = new Date()): string {
    const shifted = new Date(now.getTime() - this.config.statementGraceDays * 86_400_000);
    const month = billingMonth(shifted);
    const [year, number] = month.split('-').map(Number) as [number, number];
    return billingMonth(new Date(Date.UTC(year, number - 2, 1)));
  }

  async isClosed(orgId: string, month: string): Promise<boolean> {
    const events = await this.store.readStream(statementStream(orgId, month), { maxCount: 1 });
    return events.length > 0;
  }

  async close(orgId: string, month: string, actor: Actor): Promise<CloseOutcome> {
    if (!this.isClosable(month))
      throw new MonthNotClosableError(month, closesAt(month, this.config.statementGraceDays));
    if (await this.isClosed(orgId, month)) return { org_id: orgId, month, outcome: 'already_closed' };
    await this.projectEverythingStored();
    const { checkpoint, entries } = await readMonthEntries(this.db, this.runner, orgId, month);
    const statement: StatementIssued = {
      type: 'StatementIssued',
      data: summarizeStatement(orgId, month, checkpoint === START ? null : checkpoint, entries),
    };
    try {
      const result = await this.store.appendToStream(
        statementStream(orgId, month),
        [toNewEvent(statement, actor)],
        'no_stream',
      );
      return { org_id: orgId, month, outcome: 'closed', position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return { org_id: orgId, month, outcome: 'already_closed' };
      throw error;
    }
  }

  /**
   * Every organization's months that may close and are not closed: the latest closable month (even without
   * charges: a statement of nothing), and any earlier month the ledger has entries in.
   */
  async closeDue(actor: Actor, orgIds?: readonly string[]): Promise<CloseOutcome[]> {
    const latest = this.latestClosableMonth();
    const { rows } = await this.db.query<{ org_id: string; month: string }>(
      `SELECT o.org_id::text AS org_id, m.month
       FROM organizations o
       CROSS JOIN LATERAL (
         SELECT $1::text AS month
         UNION SELECT DISTINCT billing_month FROM ledger_entries l WHERE l.org_id = o.org_id AND l.billing_month < $1
       ) m
       WHERE ($2::uuid[] IS NULL OR o.org_id = ANY($2::uuid[]))
         AND NOT EXISTS (SELECT 1 FROM statements s WHERE s.org_id = o.org_id AND s.month = m.month)
       ORDER BY m.month, o.org_id`,
      [latest, orgIds ?? null],
    );
    const outcomes: CloseOutcome[] = [];
    for (const row of rows) outcomes.push(await this.close(row.org_id, row.month, actor));
    return outcomes;
  }

  private async projectEverythingStored(): Promise<void> {
    const head = await this.store.headPosition();
    if (head === START) return;
    const pass = await this.runner.catchUp();
    if (!isAtOrAfter(pass.position, head)) await this.runner.waitFor(head, this.config.projectionWaitTimeoutMs);
  }
}
