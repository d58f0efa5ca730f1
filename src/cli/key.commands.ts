import { CreateKeyCommand } from '../keys/commands/create-key.command.js';
import { RevokeKeyCommand } from '../keys/commands/revoke-key.command.js';
import { SetKeyBudgetCommand } from '../keys/commands/set-key-budget.command.js';
import { KEY_ENVIRONMENTS, KEY_SCOPES, type KeyScope } from '../keys/events/key.events.js';
import { KeyCacheInvalidation } from '../keys/key-cache-invalidation.js';
import { KeyViews } from '../keys/key.views.js';
import {
  JSON_FLAG,
  UsageError,
  creditLimitArgument,
  nameArgument,
  oneOf,
  optionalString,
  parseCommandArgs,
  requiredString,
  uuidArgument,
} from './args.js';
import type { CliCommand, CommandGroup } from './command.js';
import { formatTable } from './output.js';

function scopesArgument(raw: string | undefined, usage: string): KeyScope[] {
  if (raw === undefined) return [...KEY_SCOPES];
  const scopes = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (scopes.length === 0) throw new UsageError('--scopes needs at least one scope', usage);
  const valid = scopes.map((s) => oneOf(s, KEY_SCOPES, 'scope')!);
  return [...new Set(valid)];
}

const CREATE =
  'key create <org_id> --project <project_id> --name <name> [--env live|test] [--scopes a,b] [--depth-limit basic] [--json]';
const create: CliCommand = {
  usage: CREATE,
  summary: `create an API key (scopes: ${KEY_SCOPES.join(',')}; default all); prints the key once`,
  parse(args) {
    const { values, positionals } = parseCommandArgs(
      args,
      CREATE,
      {
        project: { type: 'string' },
        name: { type: 'string' },
        env: { type: 'string' },
        scopes: { type: 'string' },
        'depth-limit': { type: 'string' },
        ...JSON_FLAG,
      },
      ['<org_id>'],
    );
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const projectId = uuidArgument(requiredString(values, 'project', CREATE), '--project');
    const name = nameArgument(values, CREATE);
    const environment = oneOf(optionalString(values, 'env'), KEY_ENVIRONMENTS, 'environment') ?? 'live';
    const scopes = scopesArgument(optionalString(values, 'scopes'), CREATE);
    const depthLimit = oneOf(optionalString(values, 'depth-limit'), ['basic'] as const, 'depth limit') ?? null;
    return async (ctx) => {
      const created = await ctx.commands.execute(
        new CreateKeyCommand(orgId, projectId, name, environment, scopes, depthLimit, ctx.actor),
      );
      await ctx.afterWrite(created.position);
      const view = await ctx.app.get(KeyViews).get(orgId, created.keyId);
      if (values.json) {
        ctx.json({ ...view, id: created.keyId, key: created.plaintext });
      } else {
        ctx.out(created.plaintext);
        ctx.note(`key ${created.keyId} created; this is the only time the full key is shown`);
      }
      return 0;
    };
  },
};

const LIST = 'key list <org_id> [--json]';
const list: CliCommand = {
  usage: LIST,
  summary: 'API keys of an organization (prefix only: never the key or its hash)',
  parse(args) {
    const { values, positionals } = parseCommandArgs(args, LIST, JSON_FLAG, ['<org_id>']);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    return async (ctx) => {
      await ctx.beforeRead();
      const keys = await ctx.app.get(KeyViews).list(orgId);
      if (values.json) {
        ctx.json(keys);
        return 0;
      }
      if (keys.length === 0) {
        ctx.out('no API keys');
        return 0;
      }
      ctx.out(
        formatTable(
          ['ID', 'NAME', 'PREFIX', 'ENV', 'PROJECT', 'STATUS', 'SCOPES', 'DEPTH', 'CREATED', 'LAST USED'],
          keys.map((k) => [
            k.id,
            k.name,
            k.prefix,
            k.environment,
            k.project_id,
            k.status,
            k.scopes.join(','),
            k.depth_limit ?? 'any',
            k.created_at,
            k.last_used_at,
          ]),
        ),
      );
      return 0;
    };
  },
};

const REVOKE = 'key revoke <org_id> <key_id>';
const revoke: CliCommand = {
  usage: REVOKE,
  summary: 'revoke an API key (every node refuses it once this returns)',
  parse(args) {
    const { positionals } = parseCommandArgs(args, REVOKE, {}, ['<org_id>', '<key_id>']);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const keyId = uuidArgument(positionals[1]!, 'key_id');
    return async (ctx) => {
      const { position, keyHash } = await ctx.commands.execute(new RevokeKeyCommand(orgId, keyId, ctx.actor));
      await ctx.afterWrite(position);
      // Evicts the key from the lookup cache of every node subscribed through Redis (none without REDIS_URL).
      await ctx.app.get(KeyCacheInvalidation).invalidate(keyHash);
      ctx.out(position ? `revoked ${keyId}` : `${keyId} was already revoked`);
      return 0;
    };
  },
};

const BUDGET = 'key budget <org_id> <key_id> --credits <n|none>';
const budget: CliCommand = {
  usage: BUDGET,
  summary: "set or remove a key's monthly credit limit (KeyBudgetSet; binds on every node once this returns)",
  parse(args) {
    const { values, positionals } = parseCommandArgs(args, BUDGET, { credits: { type: 'string' } }, [
      '<org_id>',
      '<key_id>',
    ]);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const keyId = uuidArgument(positionals[1]!, 'key_id');
    const limit = creditLimitArgument(values, BUDGET);
    return async (ctx) => {
      const { position, keyHash } = await ctx.commands.execute(new SetKeyBudgetCommand(orgId, keyId, limit, ctx.actor));
      await ctx.afterWrite(position);
      if (position) await ctx.app.get(KeyCacheInvalidation).invalidate(keyHash);
      ctx.out(`${keyId}: monthly credit limit ${limit === null ? 'none' : limit}`);
      return 0;
    };
  },
};

export const keyCommands: CommandGroup = {
  name: 'key',
  scope: 'control-plane',
  summary: 'API keys',
  commands: { create, list, revoke, budget },
};
