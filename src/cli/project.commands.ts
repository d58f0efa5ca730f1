import { CreateProjectCommand } from '../projects/commands/create-project.command.js';
import { RenameProjectCommand } from '../projects/commands/rename-project.command.js';
import { SetProjectBudgetCommand } from '../projects/commands/set-project-budget.command.js';
import { KeyCacheInvalidation } from '../keys/key-cache-invalidation.js';
import { KeyViews } from '../keys/key.views.js';
import { JSON_FLAG, creditLimitArgument, nameArgument, parseCommandArgs, uuidArgument } from './args.js';
import type { CliCommand, CommandGroup } from './command.js';
import { formatTable } from './output.js';

const CREATE = 'project create <org_id> --name <name> [--json]';
const create: CliCommand = {
  usage: CREATE,
  summary: 'create a project in an organization; prints its id',
  parse(args) {
    const { values, positionals } = parseCommandArgs(args, CREATE, { name: { type: 'string' }, ...JSON_FLAG }, [
      '<org_id>',
    ]);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const name = nameArgument(values, CREATE);
    return async (ctx) => {
      const created = await ctx.commands.execute(new CreateProjectCommand(orgId, name, ctx.actor));
      await ctx.afterWrite(created.position);
      if (values.json) ctx.json({ id: created.projectId, org_id: orgId, name });
      else ctx.out(created.projectId);
      return 0;
    };
  },
};

const RENAME = 'project rename <org_id> <project_id> --name <name> [--json]';
const rename: CliCommand = {
  usage: RENAME,
  summary: 'rename a project (the same ProjectRenamed event as the dashboard writes)',
  parse(args) {
    const { values, positionals } = parseCommandArgs(args, RENAME, { name: { type: 'string' }, ...JSON_FLAG }, [
      '<org_id>',
      '<project_id>',
    ]);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const projectId = uuidArgument(positionals[1]!, 'project_id');
    const name = nameArgument(values, RENAME);
    return async (ctx) => {
      const renamed = await ctx.commands.execute(new RenameProjectCommand(orgId, projectId, name, ctx.actor));
      await ctx.afterWrite(renamed.position);
      if (values.json) ctx.json({ id: projectId, org_id: orgId, name });
      else ctx.out(projectId);
      return 0;
    };
  },
};

const BUDGET = 'project budget <org_id> <project_id> --credits <n|none>';
const budget: CliCommand = {
  usage: BUDGET,
  summary: "set or remove a project's monthly credit limit (ProjectBudgetSet; binds on every node once this returns)",
  parse(args) {
    const { values, positionals } = parseCommandArgs(args, BUDGET, { credits: { type: 'string' } }, [
      '<org_id>',
      '<project_id>',
    ]);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const projectId = uuidArgument(positionals[1]!, 'project_id');
    const limit = creditLimitArgument(values, BUDGET);
    return async (ctx) => {
      const set = await ctx.commands.execute(new SetProjectBudgetCommand(orgId, projectId, limit, ctx.actor));
      await ctx.afterWrite(set.position);
      if (set.position) {
        const invalidation = ctx.app.get(KeyCacheInvalidation);
        const hashes = await ctx.app.get(KeyViews).activeKeyHashes(projectId);
        await Promise.all(hashes.map((hash) => invalidation.invalidate(hash)));
      }
      ctx.out(`${projectId}: monthly credit limit ${limit === null ? 'none' : limit}`);
      return 0;
    };
  },
};

interface ProjectRow {
  project_id: string;
  org_id: string;
  name: string;
  keys: string;
  created_at: Date;
}

const LIST = 'project list [<org_id>] [--json]';
const list: CliCommand = {
  usage: LIST,
  summary: 'projects of one organization, or of all, from the read models',
  parse(args) {
    const { values, positionals } = parseCommandArgs(args, LIST, JSON_FLAG, [], 1);
    const orgId = positionals[0] === undefined ? undefined : uuidArgument(positionals[0], 'org_id');
    return async (ctx) => {
      await ctx.beforeRead();
      const { rows } = await ctx.db.query<ProjectRow>(
        `SELECT p.project_id, p.org_id, p.name, p.created_at,
           (SELECT count(*) FROM api_keys k WHERE k.project_id = p.project_id AND k.status = 'active') AS keys
         FROM projects p WHERE $1::uuid IS NULL OR p.org_id = $1::uuid ORDER BY p.org_id, p.created_at, p.project_id`,
        [orgId ?? null],
      );
      const projects = rows.map((r) => ({
        id: r.project_id,
        org_id: r.org_id,
        name: r.name,
        active_keys: Number(r.keys),
        created_at: r.created_at.toISOString(),
      }));
      if (values.json) {
        ctx.json(projects);
        return 0;
      }
      if (projects.length === 0) {
        ctx.out('no projects');
        return 0;
      }
      ctx.out(
        formatTable(
          ['ID', 'ORG', 'NAME', 'ACTIVE KEYS', 'CREATED'],
          projects.map((p) => [p.id, p.org_id, p.name, p.active_keys, p.created_at]),
        ),
      );
      return 0;
    };
  },
};

export const projectCommands: CommandGroup = {
  name: 'project',
  scope: 'control-plane',
  summary: 'projects of an organization',
  commands: { create, rename, list, budget },
};
