import { Global, Module } from '@nestjs/common';
import { AddMemberHandler } from './commands/add-member.handler.js';
import { ChangePlanHandler } from './commands/change-plan.handler.js';
import { CreateOrganizationHandler } from './commands/create-organization.handler.js';
import { GrantCreditsHandler } from './commands/grant-credits.handler.js';
import { RemoveMemberHandler } from './commands/remove-member.handler.js';
import { RevokeCreditGrantHandler } from './commands/revoke-credit-grant.handler.js';
import { MemberInvitations } from './member-invitations.js';
import { OrgAccessService } from './org-access.service.js';
import { OrgPlanController } from './org-plan.controller.js';
import { OrganizationViews } from './organization.views.js';
import { OrganizationsController } from './organizations.controller.js';

@Global()
@Module({
  controllers: [OrganizationsController, OrgPlanController],
  providers: [
    CreateOrganizationHandler,
    ChangePlanHandler,
    AddMemberHandler,
    RemoveMemberHandler,
    MemberInvitations,
    GrantCreditsHandler,
    RevokeCreditGrantHandler,
    OrgAccessService,
    OrganizationViews,
  ],
  exports: [OrgAccessService, OrganizationViews],
})
export class OrganizationsModule {}
