import { Module } from '@nestjs/common';
import { LedgerModule } from '../metering/ledger/ledger.module.js';
import { LogsController } from './logs.controller.js';
import { LogsService } from './logs.service.js';
import { RequestLogController } from './request-log.controller.js';
import { RequestLogHooks } from './request-log.hooks.js';
import { RequestLogQueries } from './request-log.queries.js';
import { RequestLogWriter } from './request-log.writer.js';

/**
 * The request log: every data-plane call of an organization's keys, refused ones included, written in batches off
 * the request path and kept REQUEST_LOG_RETENTION_DAYS; read through GET /orgs/{org_id}/requests (members; one call with its charges by its request id) and
 * POST /logs (Tavily's route, with an API key of the organization).
 */
@Module({
  imports: [LedgerModule],
  controllers: [RequestLogController, LogsController],
  providers: [RequestLogWriter, RequestLogHooks, RequestLogQueries, LogsService],
  exports: [RequestLogWriter],
})
export class RequestLogModule {}
