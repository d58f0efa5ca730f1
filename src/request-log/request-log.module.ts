import { Module } from '@nestjs/common';
import { LogsController } from './logs.controller.js';
import { LogsService } from './logs.service.js';
import { RequestLogController } from './request-log.controller.js';
import { RequestLogHooks } from './request-log.hooks.js';
import { RequestLogQueries } from './request-log.queries.js';
import { RequestLogWriter } from './request-log.writer.js';

/**
 * The request log: every data-plane call of an organization's keys, refused ones included, written in batches off
 * the request path and kept REQUEST_LOG_RETENTION_DAYS; read through GET /orgs/{org_id}/requests (members) and
 * POST /logs (Tavily's route, with an API key of the organization).
 */
@Module({
  controllers: [RequestLogController, LogsController],
  providers: [RequestLogWriter, RequestLogHooks, RequestLogQueries, LogsService],
  exports: [RequestLogWriter],
})
export class RequestLogModule {}
