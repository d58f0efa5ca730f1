import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ReadYourWrites } from '../event-store/read-your-writes.js';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { ErrorResponseDto } from '../http/dto/error-response.dto.js';
import { errorBody } from '../http/error-body.js';
import { ApiOrgScoped, ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { RegisterUserCommand } from '../users/commands/register-user.command.js';
import { AddMemberCommand } from './commands/add-member.command.js';
import { CreateOrganizationCommand } from './commands/create-organization.command.js';
import { RemoveMemberCommand } from './commands/remove-member.command.js';
import { AddMemberDto, CreateOrganizationDto } from './dto/create-organization.dto.js';
import {
  AddedMemberDto,
  MemberListDto,
  CreatedOrganizationDto,
  OrganizationDto,
  OrganizationListDto,
  RemovedMemberDto,
} from './dto/organization-response.dto.js';
import { MemberInvitations } from './member-invitations.js';
import { OrgAccessService, isUuid } from './org-access.service.js';
import { OrganizationViews } from './organization.views.js';
import { planLimits } from './plans.js';

@Controller('orgs')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiTags('Organizations')
export class OrganizationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly views: OrganizationViews,
    private readonly access: OrgAccessService,
    private readonly readYourWrites: ReadYourWrites,
    private readonly invitations: MemberInvitations,
  ) {}

  /** Create an organization (the caller becomes its owner; free plan) */
  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: CreatedOrganizationDto })
  async create(
    @CurrentSession() session: SessionUser,
    @Body() body: CreateOrganizationDto,
  ): Promise<CreatedOrganizationDto | undefined> {
    const plan = body.plan ?? 'free';
    const { orgId, defaultProjectId, position } = await this.commands.execute(
      new CreateOrganizationCommand(
        body.name,
        plan,
        planLimits(plan),
        { userId: session.userId, email: session.email },
        {
          type: 'user',
          id: session.userId,
        },
      ),
    );
    await this.readYourWrites.waitFor(position);
    const organization = await this.views.getFor(session.userId, orgId);
    return organization && { ...organization, default_project_id: defaultProjectId };
  }

  /** The caller's organizations */
  @Get()
  @ApiOkResponse({ type: OrganizationListDto })
  async list(@CurrentSession() session: SessionUser): Promise<OrganizationListDto> {
    return { organizations: await this.views.listFor(session.userId) };
  }

  /** An organization */
  @Get(':org_id')
  @ApiOrgScoped()
  @ApiOkResponse({ type: OrganizationDto })
  async get(@CurrentSession() session: SessionUser, @Param('org_id') orgId: string): Promise<OrganizationDto> {
    await this.access.requireMember(session.userId, orgId);
    const view = await this.views.getFor(session.userId, orgId);
    if (!view) throw new NotFoundException(errorBody('organization not found'));
    return view;
  }

  /** Members */
  @Get(':org_id/members')
  @ApiOrgScoped()
  @ApiOkResponse({ type: MemberListDto })
  async members(@CurrentSession() session: SessionUser, @Param('org_id') orgId: string): Promise<MemberListDto> {
    await this.access.requireMember(session.userId, orgId);
    return { members: await this.views.members(orgId) };
  }

  /** Add a member (owners and admins), or change a member's role */
  @Post(':org_id/members')
  @HttpCode(201)
  @ApiOrgScoped()
  @ApiCreatedResponse({ type: AddedMemberDto })
  @ApiConflictResponse({ description: "The owner's role cannot be changed.", type: ErrorResponseDto })
  async addMember(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Body() body: AddMemberDto,
  ): Promise<AddedMemberDto> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const actor = { type: 'user', id: session.userId } as const;
    const user = await this.commands.execute(new RegisterUserCommand(body.email, actor));
    const added = await this.commands.execute(
      new AddMemberCommand(orgId, { userId: user.userId, email: user.email }, body.role, actor),
    );
    if (added.position) await this.readYourWrites.waitFor(added.position);
    if (added.joined) {
      const organization = await this.views.getFor(session.userId, orgId);
      await this.invitations.send(user.email, organization?.name ?? 'an organization', body.role, session.email);
    }
    return { user_id: user.userId, email: user.email, role: body.role };
  }

  /** Remove a member (owners and admins): an admin or a plain member; the owner stays */
  @Delete(':org_id/members/:user_id')
  @ApiOrgScoped()
  @ApiOkResponse({ type: RemovedMemberDto })
  @ApiNotFoundResponse({ description: 'No such member of this organization.', type: ErrorResponseDto })
  @ApiConflictResponse({ description: 'The owner cannot be removed.', type: ErrorResponseDto })
  async removeMember(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('user_id') userId: string,
  ): Promise<RemovedMemberDto> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    if (!isUuid(userId) || userId !== userId.toLowerCase()) throw new NotFoundException(errorBody('member not found'));
    const actor = { type: 'user', id: session.userId } as const;
    const removed = await this.commands.execute(new RemoveMemberCommand(orgId, userId, actor));
    // Before the answer, the member's sessions stop reaching the organization.
    await this.readYourWrites.waitFor(removed.position);
    return { user_id: userId, removed: true };
  }
}
