import { Global, Module } from '@nestjs/common';
import { AddMemberHandler } from './commands/add-member.handler.js';
import { ChangePlanHandler } from './commands/change-plan.handler.js';
import { CreateOrganizationHandler } from './commands/create-organization.handler.js';
import { OrgAccessService } from './org-access.service.js';
import { OrgPlanController } from './org-plan.controller.js';
import { OrganizationViews } from './organization.views.js';
import { OrganizationsController } from './organizations.controller.js';

@Global()
@Module({
  controllers: [OrganizationsController, OrgPlanController],
  providers: [CreateOrganizationHandler, ChangePlanHandler, AddMemberHandler, OrgAccessService, OrganizationViews],
  exports: [OrgAccessService, OrganizationViews],
})
export class OrganizationsModule {}
