import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  ForbiddenException,
  Get,
  HttpCode,
  Param,
  Post,
  UseGuards,
} from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ReadYourWrites } from '../../event-store/read-your-writes.js';
import { OperatorAccess } from '../../auth/operator-access.service.js';
import { CurrentSession, SessionGuard } from '../../auth/session.guard.js';
import type { SessionUser } from '../../auth/session.service.js';
import type { Actor } from '../../event-store/domain-event.js';
import { ErrorResponseDto } from '../../http/dto/error-response.dto.js';
import { errorBody } from '../../http/error-body.js';
import { ApiOrgScoped, ApiSessionAuth } from '../../http/openapi/api-route.decorators.js';
import { GrantCreditsCommand } from '../../organizations/commands/grant-credits.command.js';
import { RevokeCreditGrantCommand } from '../../organizations/commands/revoke-credit-grant.command.js';
import { OrgAccessService, isUuid } from '../../organizations/org-access.service.js';
import { billingMonth } from '../counter-keys.js';
import { CreditGrantViews } from './credit-grant-views.js';
import { CreditGrantDto, CreditGrantListDto } from './dto/credit-grant.dto.js';
import { GrantCreditsDto } from './dto/grant-credits.dto.js';
import { parseGrantExpiry } from './grant-expiry.js';

/**
 * Credit grants of an organization: listed (this month's balances) for its members; granted and revoked by the
 * server's operators only (OPERATOR_EMAILS), with the same events as `cli org grant` and `cli org revoke-grant`.
 * Members who are not operators get 403 on writes; anyone else 404.
 */
@Controller('orgs/:org_id/credit-grants')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Organizations')
export class CreditGrantsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: OrgAccessService,
    private readonly operators: OperatorAccess,
    private readonly views: CreditGrantViews,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** An organization's credit grants, with what each paid and has left this month */
  @Get()
  @ApiOkResponse({ type: CreditGrantListDto })
  async list(@CurrentSession() session: SessionUser, @Param('org_id') orgId: string): Promise<CreditGrantListDto> {
    await this.requireReader(session, orgId);
    const { grants } = await this.views.spending(orgId, billingMonth(new Date()));
    return { grants };
  }

  /** Grant credits to an organization, once or every month (operators of the server only) */
  @Post()
  @ApiCreatedResponse({ type: CreditGrantDto })
  @ApiForbiddenResponse({
    description: 'The caller is a member but not an operator of the server.',
    type: ErrorResponseDto,
  })
  async grant(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Body() body: GrantCreditsDto,
  ): Promise<CreditGrantDto> {
    const actor = await this.requireOperator(session, orgId);
    const expiresAt = body.expires_at === undefined ? null : parseGrantExpiry(body.expires_at);
    if (body.expires_at !== undefined && (!expiresAt || expiresAt.getTime() <= Date.now())) {
      throw new BadRequestException(errorBody('expires_at must be a date or date-time in the future'));
    }
    const { grantId, position } = await this.commands.execute(
      new GrantCreditsCommand(
        orgId,
        {
          credits: body.credits,
          recurrence: body.every_month ? 'monthly' : 'once',
          expiresAt,
          note: body.note ?? null,
        },
        actor,
      ),
    );
    await this.readYourWrites.waitFor(position);
    const month = billingMonth(new Date());
    const { grants } = await this.views.spending(orgId, month);
    const granted = grants.find((grant) => grant.grant_id === grantId);
    if (!granted) throw new Error(`credit grant ${grantId} is not in the read model after it was granted`);
    return granted;
  }

  /** Revoke a credit grant: what it paid stays paid, the rest stops counting (operators of the server only) */
  @Delete(':grant_id')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked (or already revoked).' })
  @ApiForbiddenResponse({
    description: 'The caller is a member but not an operator of the server.',
    type: ErrorResponseDto,
  })
  async revoke(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('grant_id') grantId: string,
  ): Promise<void> {
    const actor = await this.requireOperator(session, orgId);
    if (!isUuid(grantId) || grantId !== grantId.toLowerCase()) {
      throw new BadRequestException(errorBody('grant_id must be a lowercase UUID'));
    }
    const { position } = await this.commands.execute(new RevokeCreditGrantCommand(orgId, grantId, actor));
    if (position) await this.readYourWrites.waitFor(position);
  }

  private async requireReader(session: SessionUser, orgId: string): Promise<void> {
    if (this.operators.isOperator(session)) await this.access.requireOrganization(orgId);
    else await this.access.requireMember(session.userId, orgId);
  }

  private async requireOperator(session: SessionUser, orgId: string): Promise<Actor> {
    if (!this.operators.isOperator(session)) {
      await this.access.requireMember(session.userId, orgId);
      throw new ForbiddenException(errorBody('only an operator of this server grants credits'));
    }
    await this.access.requireOrganization(orgId);
    return { type: 'operator', id: session.email };
  }
}
