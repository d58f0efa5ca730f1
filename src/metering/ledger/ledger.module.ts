import { Module } from '@nestjs/common';
import { LedgerController } from './ledger.controller.js';
import { LedgerQueries } from './ledger.queries.js';

/** Finance and audit reads of the ledger: GET /orgs/{org_id}/usage and GET /orgs/{org_id}/ledger (JSON or CSV). */
@Module({
  controllers: [LedgerController],
  providers: [LedgerQueries],
  exports: [LedgerQueries],
})
export class LedgerModule {}
