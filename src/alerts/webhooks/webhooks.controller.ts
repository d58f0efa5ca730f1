import { randomUUID } from 'node:crypto';
import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  UseGuards,
} from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentSession, SessionGuard } from '../../auth/session.guard.js';
import type { SessionUser } from '../../auth/session.service.js';
import { Database } from '../../database/database.js';
import { errorBody } from '../../http/error-body.js';
import { ApiOrgScoped, ApiSessionAuth } from '../../http/openapi/api-route.decorators.js';
import { OrgAccessService, isUuid } from '../../organizations/org-access.service.js';
import { AlertDeliveriesRepository } from '../alert-deliveries.repository.js';
import {
  CreateWebhookDto,
  CreatedWebhookDto,
  type WebhookDto,
  WebhookDeliveryListDto,
  WebhookListDto,
} from '../dto/webhook.dto.js';
import { webhookUrlRefusal } from './webhook-address.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhookSecretCipher } from './webhook-secret-cipher.js';
import { newWebhookSecret } from './webhook-signature.js';
import { WebhookDeliveryLog } from './webhook-delivery-log.js';

interface EndpointRow {
  endpoint_id: string;
  url: string;
  description: string | null;
  created_at: Date;
}
const toView = (r: EndpointRow): WebhookDto => ({
  id: r.endpoint_id,
  url: r.url,
  description: r.description,
  created_at: r.created_at.toISOString(),
});

@Controller('orgs/:org_id/webhooks')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Webhooks')
export class WebhooksController {
  constructor(
    private readonly access: OrgAccessService,
    private readonly db: Database,
    private readonly sender: WebhookSender,
    private readonly deliveries: AlertDeliveriesRepository,
    private readonly log: WebhookDeliveryLog,
    private readonly cipher: WebhookSecretCipher,
  ) {}

  /** Register a webhook endpoint for alerts (owners and admins); its signing secret is shown in this answer only */
  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  async create(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Body() body: CreateWebhookDto,
  ): Promise<CreatedWebhookDto> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const url = new URL(body.url);
    if (url.username || url.password) throw new BadRequestException(errorBody('url must not carry credentials'));
    const refusal = await webhookUrlRefusal(this.sender.policy, url);
    if (refusal) throw new BadRequestException(errorBody(`url refused: ${refusal.message}`));
    const secret = newWebhookSecret();
    const endpointId = randomUUID();
    // Stored sealed (webhook-secret-cipher.ts): the plaintext is in this answer only.
    const row = (
      await this.db.query<EndpointRow>(
        `INSERT INTO webhook_endpoints (endpoint_id, org_id, url, description, secret, created_by)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING endpoint_id, url, description, created_at`,
        [
          endpointId,
          orgId,
          url.toString(),
          body.description || null,
          this.cipher.seal(endpointId, secret),
          session.userId,
        ],
      )
    ).rows[0]!;
    return { ...toView(row), secret };
  }

  /** Webhook endpoints */
  @Get()
  @ApiOkResponse({ type: WebhookListDto })
  async list(@CurrentSession() session: SessionUser, @Param('org_id') orgId: string): Promise<WebhookListDto> {
    await this.access.requireMember(session.userId, orgId);
    const rows = await this.db.query<EndpointRow>(
      `SELECT endpoint_id, url, description, created_at FROM webhook_endpoints
       WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, endpoint_id`,
      [orgId],
    );
    return { webhooks: rows.rows.map(toView) };
  }

  /** Remove a webhook endpoint (owners and admins): nothing more is delivered to it */
  @Delete(':webhook_id')
  @HttpCode(204)
  @ApiParam({ name: 'webhook_id', format: 'uuid' })
  async remove(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('webhook_id') webhookId: string,
  ): Promise<void> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    await this.requireEndpoint(orgId, webhookId);
    await this.db.query('UPDATE webhook_endpoints SET deleted_at = now() WHERE endpoint_id = $1', [webhookId]);
  }

  /** An endpoint's deliveries with every attempt, newest first (the last 100) */
  @Get(':webhook_id/deliveries')
  @ApiParam({ name: 'webhook_id', format: 'uuid' })
  @ApiOkResponse({ type: WebhookDeliveryListDto })
  async deliveriesOf(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('webhook_id') webhookId: string,
  ): Promise<WebhookDeliveryListDto> {
    await this.access.requireMember(session.userId, orgId);
    await this.requireEndpoint(orgId, webhookId);
    return { deliveries: await this.log.deliveries(webhookId) };
  }

  /** Send a delivery again now (owners and admins), with a fresh retry schedule */
  @Post(':webhook_id/deliveries/:delivery_id/replay')
  @HttpCode(202)
  @ApiParam({ name: 'webhook_id', format: 'uuid' })
  @ApiParam({ name: 'delivery_id', format: 'uuid' })
  @ApiAcceptedResponse({ description: 'The delivery is pending again.' })
  async replay(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('webhook_id') webhookId: string,
    @Param('delivery_id') deliveryId: string,
  ): Promise<{ status: 'pending' }> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    await this.requireEndpoint(orgId, webhookId);
    if (!isLowerUuid(deliveryId) || !(await this.deliveries.replay(orgId, webhookId, deliveryId))) {
      throw new NotFoundException(errorBody('delivery not found'));
    }
    return { status: 'pending' };
  }

  private async requireEndpoint(orgId: string, webhookId: string): Promise<void> {
    const found = isLowerUuid(webhookId)
      ? await this.db.query(
          'SELECT 1 FROM webhook_endpoints WHERE endpoint_id = $1 AND org_id = $2 AND deleted_at IS NULL',
          [webhookId, orgId],
        )
      : { rows: [] };
    if (found.rows.length === 0) throw new NotFoundException(errorBody('webhook not found'));
  }
}

const isLowerUuid = (id: string) => isUuid(id) && id === id.toLowerCase();
