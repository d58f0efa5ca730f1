import { ChangePlanCommand } from '../organizations/commands/change-plan.command.js';
import {
  CreateOrganizationCommand,
  DEFAULT_PROJECT_NAME,
} from '../organizations/commands/create-organization.command.js';
import type { Overage } from '../organizations/events/organization.events.js';
import { PLAN_NAMES, type PlanName, planLimits } from '../organizations/plans.js';
import { RegisterUserCommand } from '../users/commands/register-user.command.js';
import { isEmailAddress } from '../common/email-address.js';
import {
  JSON_FLAG,
  type ParsedArgs,
  UsageError,
  nameArgument,
  oneOf,
  optionalInteger,
  optionalString,
  parseCommandArgs,
  uuidArgument,
} from './args.js';
import type { CliCommand, CommandGroup } from './command.js';
import { formatTable } from './output.js';
import { grantCredits, listGrants, revokeGrant } from './org-grant.commands.js';
import { PRICE } from '../organizations/dto/change-plan.dto.js';

const LIMIT_FLAGS = {
  allowance: { type: 'string' },
  'rpm-live': { type: 'string' },
  'rpm-test': { type: 'string' },
} as const;
const PLANS = `plan: ${PLAN_NAMES.join('|')}`;

function limitOverrides(values: ParsedArgs['values']) {
  const allowance = optionalInteger(values, 'allowance', 0);
  const rpmLive = optionalInteger(values, 'rpm-live', 1);
  const rpmTest = optionalInteger(values, 'rpm-test', 1);
  return {
    ...(allowance !== undefined ? { allowance } : {}),
    ...(rpmLive !== undefined ? { rpmLive } : {}),
    ...(rpmTest !== undefined ? { rpmTest } : {}),
  };
}

const plan = (values: ParsedArgs['values']): PlanName | undefined =>
  oneOf(optionalString(values, 'plan'), PLAN_NAMES, 'plan');

const CREATE =
  'org create --name <name> [--plan <plan>] [--owner <email>] [--allowance <credits>] [--rpm-live <n>] [--rpm-test <n>] [--json]';
const create: CliCommand = {
  usage: CREATE,
  summary: `create an organization (${PLANS}, default free); prints its id`,
  parse(args) {
    const { values } = parseCommandArgs(args, CREATE, {
      name: { type: 'string' },
      plan: { type: 'string' },
      owner: { type: 'string' },
      ...LIMIT_FLAGS,
      ...JSON_FLAG,
    });
    const name = nameArgument(values, CREATE);
    const planName = plan(values) ?? 'free';
    const limits = planLimits(planName, limitOverrides(values));
    const ownerEmail = optionalString(values, 'owner');
    if (ownerEmail !== undefined && !isEmailAddress(ownerEmail)) {
      throw new UsageError(`--owner must be an e-mail address, got ${JSON.stringify(ownerEmail)}`, CREATE);
    }
    return async (ctx) => {
      const owner = ownerEmail ? await ctx.commands.execute(new RegisterUserCommand(ownerEmail, ctx.actor)) : null;
      const created = await ctx.commands.execute(
        new CreateOrganizationCommand(
          name,
          planName,
          limits,
          owner ? { userId: owner.userId, email: owner.email } : null,
          ctx.actor,
        ),
      );
      await ctx.afterWrite(created.position);
      if (values.json) {
        ctx.json({
          id: created.orgId,
          name,
          plan: planName,
          ...limits,
          owner: owner ? { user_id: owner.userId, email: owner.email } : null,
          default_project: { id: created.defaultProjectId, name: DEFAULT_PROJECT_NAME },
        });
      } else {
        ctx.out(created.orgId);
      }
      return 0;
    };
  },
};

const PLAN =
  'org plan <org_id> --plan <plan> [--allowance <credits>] [--rpm-live <n>] [--rpm-test <n>] ' +
  '[--overage-cap <credits> --overage-price <decimal>] [--json]';

/** Pay-as-you-go past the allowance and grants: both flags or neither (none, the default). */
function overageOf(values: ParsedArgs['values']): Overage | null {
  const cap = optionalInteger(values, 'overage-cap', 0);
  const price = optionalString(values, 'overage-price');
  if (cap === undefined && price === undefined) return null;
  if (cap === undefined || price === undefined) {
    throw new UsageError('--overage-cap and --overage-price go together', PLAN);
  }
  if (!PRICE.test(price))
    throw new UsageError('--overage-price must be a decimal such as 0.008 (up to 8 places)', PLAN);
  return { credit_cap: cap, price_per_credit: price };
}
const changePlan: CliCommand = {
  usage: PLAN,
  summary: "change an organization's plan (the plan's limits unless overridden)",
  parse(args) {
    const { values, positionals } = parseCommandArgs(
      args,
      PLAN,
      {
        plan: { type: 'string' },
        ...LIMIT_FLAGS,
        'overage-cap': { type: 'string' },
        'overage-price': { type: 'string' },
        ...JSON_FLAG,
      },
      ['<org_id>'],
    );
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const planName = plan(values);
    if (!planName) throw new UsageError('--plan is required', PLAN);
    const limits = planLimits(planName, limitOverrides(values));
    const overage = overageOf(values);
    return async (ctx) => {
      const { position } = await ctx.commands.execute(
        new ChangePlanCommand(orgId, planName, limits, ctx.actor, overage),
      );
      await ctx.afterWrite(position);
      if (values.json) ctx.json({ id: orgId, plan: planName, ...limits, overage });
      else
        ctx.out(
          `organization ${orgId}: plan ${planName}, ${limits.monthly_credit_allowance} credits a month, ` +
            `${limits.rate_limit_per_minute.live}/${limits.rate_limit_per_minute.test} requests a minute (live/test)` +
            (overage
              ? `, overage up to ${overage.credit_cap} credits at ${overage.price_per_credit} a credit`
              : ', no overage'),
        );
      return 0;
    };
  },
};

interface OrganizationRow {
  org_id: string;
  name: string;
  plan: string;
  monthly_credit_allowance: string;
  rate_limit_live: number;
  rate_limit_test: number;
  members: string;
  created_at: Date;
}

const LIST = 'org list [--json]';
const list: CliCommand = {
  usage: LIST,
  summary: 'every organization, from the read models',
  parse(args) {
    const { values } = parseCommandArgs(args, LIST, JSON_FLAG);
    return async (ctx) => {
      await ctx.beforeRead();
      const { rows } = await ctx.db.query<OrganizationRow>(
        `SELECT o.org_id, o.name, o.plan, o.monthly_credit_allowance, o.rate_limit_live, o.rate_limit_test,
           o.created_at, (SELECT count(*) FROM org_members m WHERE m.org_id = o.org_id) AS members
         FROM organizations o ORDER BY o.created_at, o.org_id`,
      );
      const orgs = rows.map((r) => ({
        id: r.org_id,
        name: r.name,
        plan: r.plan,
        monthly_credit_allowance: Number(r.monthly_credit_allowance),
        rate_limit_per_minute: { live: r.rate_limit_live, test: r.rate_limit_test },
        members: Number(r.members),
        created_at: r.created_at.toISOString(),
      }));
      if (values.json) {
        ctx.json(orgs);
        return 0;
      }
      if (orgs.length === 0) {
        ctx.out('no organizations');
        return 0;
      }
      ctx.out(
        formatTable(
          ['ID', 'NAME', 'PLAN', 'ALLOWANCE', 'RPM LIVE', 'RPM TEST', 'MEMBERS'],
          orgs.map((o) => [
            o.id,
            o.name,
            o.plan,
            o.monthly_credit_allowance,
            o.rate_limit_per_minute.live,
            o.rate_limit_per_minute.test,
            o.members,
          ]),
        ),
      );
      return 0;
    };
  },
};

export const orgCommands: CommandGroup = {
  name: 'org',
  scope: 'control-plane',
  summary: 'organizations and their plans',
  commands: { create, plan: changePlan, list, grant: grantCredits, 'revoke-grant': revokeGrant, grants: listGrants },
};
