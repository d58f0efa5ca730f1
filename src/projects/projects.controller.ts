import { Body, Controller, Get, HttpCode, NotFoundException, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { ReadYourWrites } from '../event-store/read-your-writes.js';
import type { Position } from '../event-store/event-store.port.js';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { Database } from '../database/database.js';
import { errorBody } from '../http/error-body.js';
import { ApiOrgScoped, ApiSessionAuth } from '../http/openapi/api-route.decorators.js';
import { KeyCacheInvalidation } from '../keys/key-cache-invalidation.js';
import { KeyViews } from '../keys/key.views.js';
import { OrgAccessService, isUuid } from '../organizations/org-access.service.js';
import { CreateProjectCommand } from './commands/create-project.command.js';
import { RenameProjectCommand } from './commands/rename-project.command.js';
import { SetProjectBudgetCommand } from './commands/set-project-budget.command.js';
import { CreateProjectDto, RenameProjectDto } from './dto/create-project.dto.js';
import { ProjectDto, ProjectListDto } from './dto/project-response.dto.js';

interface ProjectRow {
  project_id: string;
  org_id: string;
  name: string;
  created_at: Date;
  monthly_credit_limit: string | null;
}
const toView = (r: ProjectRow): ProjectDto => ({
  id: r.project_id,
  org_id: r.org_id,
  name: r.name,
  created_at: r.created_at.toISOString(),
  monthly_credit_limit: r.monthly_credit_limit === null ? null : Number(r.monthly_credit_limit),
});

@Controller('orgs/:org_id/projects')
@UseGuards(SessionGuard)
@ApiSessionAuth()
@ApiOrgScoped()
@ApiTags('Projects')
export class ProjectsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly access: OrgAccessService,
    private readonly db: Database,
    private readonly readYourWrites: ReadYourWrites,
    private readonly invalidation: KeyCacheInvalidation,
    private readonly keys: KeyViews,
  ) {}

  /** Create a project (owners and admins) */
  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: ProjectDto })
  async create(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Body() body: CreateProjectDto,
  ): Promise<ProjectDto> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const { projectId, position } = await this.commands.execute(
      new CreateProjectCommand(
        orgId,
        body.name,
        { type: 'user', id: session.userId },
        body.monthly_credit_limit ?? null,
      ),
    );
    await this.readYourWrites.waitFor(position);
    return this.get(orgId, projectId);
  }

  /** Projects */
  @Get()
  @ApiOkResponse({ type: ProjectListDto })
  async list(@CurrentSession() session: SessionUser, @Param('org_id') orgId: string): Promise<ProjectListDto> {
    await this.access.requireMember(session.userId, orgId);
    const result = await this.db.query<ProjectRow>(
      'SELECT * FROM projects WHERE org_id = $1 ORDER BY created_at, project_id',
      [orgId],
    );
    return { projects: result.rows.map(toView) };
  }

  /** Rename a project, or set its monthly credit limit (owners and admins) */
  @Patch(':project_id')
  @ApiParam({ name: 'project_id', format: 'uuid' })
  @ApiOkResponse({ type: ProjectDto })
  async rename(
    @CurrentSession() session: SessionUser,
    @Param('org_id') orgId: string,
    @Param('project_id') projectId: string,
    @Body() body: RenameProjectDto,
  ): Promise<ProjectDto> {
    await this.access.requireMember(session.userId, orgId, ['owner', 'admin']);
    const actor = { type: 'user', id: session.userId } as const;
    const positions: (Position | null)[] = [];
    if (body.name !== undefined) {
      positions.push(
        (await this.commands.execute(new RenameProjectCommand(orgId, projectId, body.name, actor))).position,
      );
    }
    let budgetSet = false;
    if (body.monthly_credit_limit !== undefined) {
      const command = new SetProjectBudgetCommand(orgId, projectId, body.monthly_credit_limit, actor);
      const { position } = await this.commands.execute(command);
      positions.push(position);
      budgetSet = position !== null;
    }
    const last = positions.filter((position) => position !== null).at(-1);
    if (last) await this.readYourWrites.waitFor(last);
    // A new limit binds every key of the project on every node (their cached records dropped) once this answers.
    if (budgetSet) await this.dropCachedKeys(projectId);
    return this.get(orgId, projectId);
  }

  private async dropCachedKeys(projectId: string): Promise<void> {
    const hashes = await this.keys.activeKeyHashes(projectId);
    await Promise.all(hashes.map((hash) => this.invalidation.invalidate(hash)));
  }

  private async get(orgId: string, projectId: string): Promise<ProjectDto> {
    // As the commands name projects (an empty PATCH runs none): a malformed or upper-case id names none.
    if (!isUuid(projectId) || projectId !== projectId.toLowerCase()) {
      throw new NotFoundException(errorBody('project not found'));
    }
    const result = await this.db.query<ProjectRow>('SELECT * FROM projects WHERE org_id = $1 AND project_id = $2', [
      orgId,
      projectId,
    ]);
    // Read-your-writes makes a written project visible; without it there is nothing true to answer.
    if (!result.rows[0]) throw new NotFoundException(errorBody('project not found'));
    return toView(result.rows[0]);
  }
}
