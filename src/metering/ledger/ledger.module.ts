import { Module } from '@nestjs/common';
import { OrgUsageController } from '../org-usage/org-usage.controller.js';
import { OrgUsageService } from '../org-usage/org-usage.service.js';
import { LedgerController } from './ledger.controller.js';
import { LedgerQueries } from './ledger.queries.js';

/**
 * Finance and audit reads of the ledger: GET /orgs/{org_id}/usage and GET /orgs/{org_id}/ledger (JSON or CSV) for
 * members, and POST /org-usage (Tavily's route) with an owner's API key.
 */
@Module({
  controllers: [LedgerController, OrgUsageController],
  providers: [LedgerQueries, OrgUsageService],
  exports: [LedgerQueries],
})
export class LedgerModule {}
