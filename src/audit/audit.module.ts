import { Module } from '@nestjs/common';
import { AuditLogController } from './audit-log.controller.js';
import { AuditLogQueries } from './audit-log.queries.js';

/** The audit log of the control plane: GET /orgs/{org_id}/audit-log (owners and admins), read from its projection. */
@Module({
  controllers: [AuditLogController],
  providers: [AuditLogQueries],
})
export class AuditModule {}
