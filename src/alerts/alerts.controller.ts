import { Body, Controller, Get, Param, Put, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ReadYourWrites } from '../event-store/read-your-writes.js';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { Database } from '../database/database.js';
import { ApiOrgScoped, ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { OrgAccessService } from '../organizations/org-access.service.js';
import { SetAlertThresholdsCommand } from './commands/set-alert-thresholds.command.js';
import {
  AlertCrossedListDto,
  AlertThresholdsDto,
  AlertThresholdsListDto,
  SetAlertThresholdsDto,
} from './dto/alert-thresholds.dto.js';
import { type AlertScope, DEFAULT_THRESHOLDS } from './events/alert.events.js';

@Controller('orgs/:org_id')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Alerts')
export class AlertsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: OrgAccessService,
    private readonly db: Database,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** Alert thresholds: the organization's allowance's, and those of projects and keys that have their own */
  @Get('alert-thresholds')
  @ApiOkResponse({ type: AlertThresholdsListDto })
  async thresholds(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
  ): Promise<AlertThresholdsListDto> {
    await this.access.requireMember(session.userId, orgId);
    const rows = (
      await this.db.query<{ scope: AlertScope; scope_id: string; thresholds: number[] }>(
        `SELECT scope, scope_id, thresholds FROM alert_thresholds WHERE org_id = $1
         ORDER BY scope = 'organization' DESC, scope, scope_id`,
        [orgId],
      )
    ).rows;
    const own = rows.map((r) => ({ scope: r.scope, id: r.scope_id, thresholds: r.thresholds, default: false }));
    const orgDefault: AlertThresholdsDto[] = own.some((r) => r.scope === 'organization')
      ? []
      : [{ scope: 'organization', id: orgId, thresholds: [...DEFAULT_THRESHOLDS], default: true }];
    return { thresholds: [...orgDefault, ...own] };
  }

  /** Set the alert thresholds of the allowance, a project's or a key's limit (owners and admins) */
  @Put('alert-thresholds')
  @ApiOkResponse({ type: AlertThresholdsDto })
  async setThresholds(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Body() body: SetAlertThresholdsDto,
  ): Promise<AlertThresholdsDto> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const scopeId = body.scope === 'organization' ? orgId : body.id!;
    const thresholds = [...body.thresholds].sort((a, b) => a - b);
    const { position } = await this.commands.execute(
      new SetAlertThresholdsCommand(orgId, body.scope, scopeId, thresholds, { type: 'user', id: session.userId }),
    );
    await this.readYourWrites.waitFor(position);
    return { scope: body.scope, id: scopeId, thresholds, default: false };
  }

  /** Thresholds crossed, newest first (the last 200) */
  @Get('alerts')
  @ApiOkResponse({ type: AlertCrossedListDto })
  async alerts(@CurrentSession() session: SessionUser, @Param('org_id') orgId: string): Promise<AlertCrossedListDto> {
    await this.access.requireMember(session.userId, orgId);
    const rows = (
      await this.db.query<{
        event_id: string;
        scope: AlertScope;
        scope_id: string;
        billing_month: string;
        threshold: number;
        credits_used: string;
        credits_limit: string;
        crossed_at: Date;
      }>('SELECT * FROM alerts_crossed WHERE org_id = $1 ORDER BY crossed_at DESC, event_id LIMIT 200', [orgId])
    ).rows;
    return {
      alerts: rows.map((r) => ({
        id: r.event_id,
        scope: r.scope,
        scope_id: r.scope_id,
        billing_month: r.billing_month,
        threshold: r.threshold,
        credits_used: Number(r.credits_used),
        credits_limit: Number(r.credits_limit),
        crossed_at: r.crossed_at.toISOString(),
      })),
    };
  }
}
