import { Module } from '@nestjs/common';
import { RequestLogController } from './request-log.controller.js';
import { RequestLogHooks } from './request-log.hooks.js';
import { RequestLogQueries } from './request-log.queries.js';
import { RequestLogWriter } from './request-log.writer.js';

/**
 * The request log: every data-plane call of an organization's keys, refused ones included, written in batches off
 * the request path and kept REQUEST_LOG_RETENTION_DAYS; read through GET /orgs/{org_id}/requests.
 */
@Module({
  controllers: [RequestLogController],
  providers: [RequestLogWriter, RequestLogHooks, RequestLogQueries],
  exports: [RequestLogWriter],
})
export class RequestLogModule {}
