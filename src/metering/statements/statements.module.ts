import { Module } from '@nestjs/common';
import { LedgerAdjuster } from './ledger-adjuster.js';
import { StatementCloser } from './statement-closer.js';
import { StatementSchedule } from './statement-schedule.js';
import { StatementQueries } from './statement.queries.js';
import { StatementsController } from './statements.controller.js';

/**
 * Closed months: statements closed by a timer and by `ledger close`, read through GET /orgs/{org_id}/statements,
 * corrected by `ledger adjust`.
 */
@Module({
  controllers: [StatementsController],
  providers: [StatementCloser, StatementQueries, StatementSchedule, LedgerAdjuster],
  exports: [StatementCloser, StatementQueries, LedgerAdjuster],
})
export class StatementsModule {}
