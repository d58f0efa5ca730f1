import { Body, Controller, ForbiddenException, Param, Put, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiForbiddenResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ReadYourWrites } from '../event-store/read-your-writes.js';
import { OperatorAccess } from '../auth/operator-access.service.js';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { ErrorResponseDto } from '../http/dto/error-response.dto.js';
import { errorBody } from '../http/error-body.js';
import { ApiOrgScoped, ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { ChangePlanCommand } from './commands/change-plan.command.js';
import { ChangePlanDto } from './dto/change-plan.dto.js';
import { OrganizationPlanDto } from './dto/organization-response.dto.js';
import { OrgAccessService } from './org-access.service.js';
import { OrganizationViews } from './organization.views.js';
import { planLimits } from './plans.js';

/**
 * An organization's plan and limits, changed by an operator of the server (OPERATOR_EMAILS) with the same
 * PlanChanged event as `cli org plan`. Members who are not operators, owners included, get 403; anyone else 404.
 */
@Controller('orgs/:org_id/plan')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Organizations')
export class OrgPlanController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: OrgAccessService,
    private readonly operators: OperatorAccess,
    private readonly views: OrganizationViews,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** Change an organization's plan and limits (operators of the server only) */
  @Put()
  @ApiOkResponse({ type: OrganizationPlanDto })
  @ApiForbiddenResponse({
    description: 'The caller is a member but not an operator of the server (OPERATOR_EMAILS).',
    type: ErrorResponseDto,
  })
  async change(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Body() body: ChangePlanDto,
  ): Promise<OrganizationPlanDto> {
    if (!this.operators.isOperator(session)) {
      await this.access.requireMember(session.userId, orgId);
      throw new ForbiddenException(errorBody('only an operator of this server changes plans'));
    }
    await this.access.requireOrganization(orgId);
    const limits = planLimits(body.plan, {
      allowance: body.monthly_credit_allowance,
      rpmLive: body.rate_limit_per_minute?.live,
      rpmTest: body.rate_limit_per_minute?.test,
    });
    const { position } = await this.commands.execute(
      new ChangePlanCommand(
        orgId,
        body.plan,
        limits,
        { type: 'operator', id: session.email },
        body.overage ? { credit_cap: body.overage.credit_cap, price_per_credit: body.overage.price_per_credit } : null,
      ),
    );
    await this.readYourWrites.waitFor(position);
    const view = await this.views.plan(orgId);
    // Read-your-writes above makes the change visible; without it there is nothing true to answer.
    if (!view) throw new Error(`organization ${orgId} is not in the read model after its plan change`);
    return view;
  }
}
