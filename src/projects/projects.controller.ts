import { Body, Controller, Get, HttpCode, NotFoundException, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { ReadYourWrites } from '../../projections/read-your-writes.js';
import { CurrentSession, SessionGuard } from '../auth/session.guard.js';
import type { SessionUser } from '../auth/session.service.js';
import { Database } from '../database/database.js';
import { errorBody } from '../http/error-body.js';
import { ApiOrgScoped, ApiSessionAuth } from '../openapi/api-route.decorators.js';
import { OrgAccessService } from '../organizations/org-access.service.js';
import { CreateProjectCommand } from './commands/create-project.command.js';
import { RenameProjectCommand } from './commands/rename-project.command.js';
import { CreateProjectDto, RenameProjectDto } from './dto/create-project.dto.js';
import { ProjectDto, ProjectListDto } from './dto/project-response.dto.js';

interface ProjectRow {
  project_id: string;
  org_id: string;
  name: string;
  created_at: Date;
}
const toView = (r: ProjectRow): ProjectDto => ({
  id: r.project_id,
  org_id: r.org_id,
  name: r.name,
  created_at: r.created_at.toISOString(),
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
      new CreateProjectCommand(orgId, body.name, { type: 'user', id: session.userId }),
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

  /** Rename a project (owners and admins) */
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
    const { position } = await this.commands.execute(
      new RenameProjectCommand(orgId, projectId, body.name, { type: 'user', id: session.userId }),
    );
    if (position) await this.readYourWrites.waitFor(position);
    return this.get(orgId, projectId);
  }

  private async get(orgId: string, projectId: string): Promise<ProjectDto> {
    const result = await this.db.query<ProjectRow>('SELECT * FROM projects WHERE org_id = $1 AND project_id = $2', [
      orgId,
      projectId,
    ]);
    // Read-your-writes makes a written project visible; without it there is nothing true to answer.
    if (!result.rows[0]) throw new NotFoundException(errorBody('project not found'));
    return toView(result.rows[0]);
  }
}
