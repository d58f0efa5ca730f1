import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Patch,
  Post,
  UseGuards,
} from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { ReadYourWrites } from '../event-store/read-your-writes.js';
import type { Position } from '../event-store/event-store.port.js';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { ErrorResponseDto } from '../http/dto/error-response.dto.js';
import { errorBody } from '../http/error-body.js';
import { ApiOrgScoped, ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { OrgAccessService, isUuid } from '../organizations/org-access.service.js';
import { CreateKeyCommand } from './commands/create-key.command.js';
import { RenameKeyCommand } from './commands/rename-key.command.js';
import { RevokeKeyCommand } from './commands/revoke-key.command.js';
import { SetKeyBudgetCommand } from './commands/set-key-budget.command.js';
import { ApiKeyDto, ApiKeyListDto, CreatedApiKeyDto } from './dto/key-response.dto.js';
import { CreateKeyDto, RenameKeyDto } from './dto/key.dto.js';
import { KEY_SCOPES } from './events/key.events.js';
import { KeyCacheInvalidation } from './key-cache-invalidation.js';
import { KeyViews } from './key.views.js';

/**
 * API keys of an organization. Session auth only; a caller who is not a member gets 404.
 * POST answers with a key that authenticates at once; DELETE answers once every node refuses the key.
 */
@Controller('orgs/:org_id/api-keys')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('API keys')
export class ApiKeysController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: OrgAccessService,
    private readonly views: KeyViews,
    private readonly readYourWrites: ReadYourWrites,
    private readonly invalidation: KeyCacheInvalidation,
  ) {}

  /** Create an API key (owners and admins): the plaintext key is in this response only */
  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  async create(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Body() body: CreateKeyDto,
  ): Promise<CreatedApiKeyDto> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const projectId = body.project_id ?? (await this.views.firstProject(orgId));
    if (!projectId)
      throw new BadRequestException(errorBody('project_id is required: the organization has no project yet'));
    const created = await this.commands.execute(
      new CreateKeyCommand(
        orgId,
        projectId,
        body.name,
        body.environment ?? 'live',
        body.scopes ?? [...KEY_SCOPES],
        body.depth_limit ?? null,
        { type: 'user', id: session.userId },
        body.monthly_credit_limit ?? null,
      ),
    );
    await this.readYourWrites.waitFor(created.position);
    const view = await this.views.get(orgId, created.keyId);
    // Read-your-writes above makes the new key visible; without it there is nothing true to answer.
    if (!view) throw new Error(`key ${created.keyId} is not in the read model after its creation`);
    return { ...view, key: created.plaintext };
  }

  /** API keys (prefixes only) */
  @Get()
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(@CurrentSession() session: SessionUser, @Param('org_id') orgId: string): Promise<ApiKeyListDto> {
    await this.access.requireMember(session.userId, orgId);
    return { keys: await this.views.list(orgId) };
  }

  /** Rename an API key, or set its monthly credit limit (owners and admins) */
  @Patch(':key_id')
  @ApiParam({ name: 'key_id', format: 'uuid' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiConflictResponse({ description: 'A revoked key cannot be renamed or given a budget.', type: ErrorResponseDto })
  async rename(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('key_id') keyId: string,
    @Body() body: RenameKeyDto,
  ) {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const actor = { type: 'user', id: session.userId } as const;
    const positions: (Position | null)[] = [];
    if (body.name !== undefined) {
      positions.push((await this.commands.execute(new RenameKeyCommand(orgId, keyId, body.name, actor))).position);
    }
    let budgetOf: string | null = null;
    if (body.monthly_credit_limit !== undefined) {
      const command = new SetKeyBudgetCommand(orgId, keyId, body.monthly_credit_limit, actor);
      const set = await this.commands.execute(command);
      positions.push(set.position);
      if (set.position) budgetOf = set.keyHash;
    }
    const last = positions.filter((position) => position !== null).at(-1);
    if (last) await this.readYourWrites.waitFor(last);
    // A new limit binds on every node (its key cache dropped, as for a revocation) once this answers.
    if (budgetOf) await this.invalidation.invalidate(budgetOf);
    // An empty body changes nothing, but names a key all the same: another organization's, or none, is a 404.
    const view = isUuid(keyId) && keyId === keyId.toLowerCase() ? await this.views.get(orgId, keyId) : undefined;
    if (!view) throw new NotFoundException(errorBody('API key not found'));
    return view;
  }

  /** Revoke an API key (owners and admins): refused on every node once this answers */
  @Delete(':key_id')
  @ApiParam({ name: 'key_id', format: 'uuid' })
  @ApiOkResponse({ type: ApiKeyDto })
  async revoke(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('key_id') keyId: string,
  ): Promise<ApiKeyDto | undefined> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const { position, keyHash } = await this.commands.execute(
      new RevokeKeyCommand(orgId, keyId, { type: 'user', id: session.userId }),
    );
    if (position) await this.readYourWrites.waitFor(position);
    await this.invalidation.invalidate(keyHash);
    return this.views.get(orgId, keyId);
  }
}
