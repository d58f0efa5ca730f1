import { billingMonth } from '../metering/counter-keys.js';
import { CreditGrantViews } from '../metering/grants/credit-grant-views.js';
import { parseGrantExpiry } from '../metering/grants/grant-expiry.js';
import { GrantCreditsCommand } from '../organizations/commands/grant-credits.command.js';
import { RevokeCreditGrantCommand } from '../organizations/commands/revoke-credit-grant.command.js';
import { JSON_FLAG, UsageError, optionalInteger, optionalString, parseCommandArgs, uuidArgument } from './args.js';
import type { CliCommand } from './command.js';
import { formatTable } from './output.js';

const GRANT =
  'org grant <org_id> --credits <n> [--every-month] [--expires <YYYY-MM-DD|ISO date-time>] [--note <text>] [--json]';
export const grantCredits: CliCommand = {
  usage: GRANT,
  summary:
    'grant credits to an organization, once or every month, with an optional expiry (a date: through that day, UTC)',
  parse(args) {
    const { values, positionals } = parseCommandArgs(
      args,
      GRANT,
      {
        credits: { type: 'string' },
        'every-month': { type: 'boolean' },
        expires: { type: 'string' },
        note: { type: 'string' },
        ...JSON_FLAG,
      },
      ['<org_id>'],
    );
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const credits = optionalInteger(values, 'credits', 1);
    if (credits === undefined) throw new UsageError('--credits is required', GRANT);
    const expiresText = optionalString(values, 'expires');
    const expiresAt = expiresText === undefined ? null : parseGrantExpiry(expiresText);
    if (expiresText !== undefined && (!expiresAt || expiresAt.getTime() <= Date.now())) {
      throw new UsageError(
        `--expires must be a date or ISO date-time in the future, got ${JSON.stringify(expiresText)}`,
      );
    }
    const note = optionalString(values, 'note') ?? null;
    if (note && note.length > 500) throw new UsageError('--note must be at most 500 characters', GRANT);
    const recurrence = values['every-month'] ? 'monthly' : 'once';
    return async (ctx) => {
      const { grantId, position } = await ctx.commands.execute(
        new GrantCreditsCommand(orgId, { credits, recurrence, expiresAt, note }, ctx.actor),
      );
      await ctx.afterWrite(position);
      const grant = {
        grant_id: grantId,
        org_id: orgId,
        credits,
        recurrence,
        expires_at: expiresAt?.toISOString() ?? null,
        note,
      };
      if (values.json) ctx.json(grant);
      else ctx.out(grantId);
      return 0;
    };
  },
};

const REVOKE = 'org revoke-grant <org_id> <grant_id>';
export const revokeGrant: CliCommand = {
  usage: REVOKE,
  summary: 'end a credit grant now: what it paid stays paid, the rest stops counting',
  parse(args) {
    const { positionals } = parseCommandArgs(args, REVOKE, {}, ['<org_id>', '<grant_id>']);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const grantId = uuidArgument(positionals[1]!, 'grant_id');
    return async (ctx) => {
      const { position } = await ctx.commands.execute(new RevokeCreditGrantCommand(orgId, grantId, ctx.actor));
      if (position) await ctx.afterWrite(position);
      ctx.out(position ? `credit grant ${grantId} revoked` : `credit grant ${grantId} was already revoked`);
      return 0;
    };
  },
};

const GRANTS = 'org grants <org_id> [--month <YYYY-MM>] [--json]';
export const listGrants: CliCommand = {
  usage: GRANTS,
  summary: "an organization's credit grants (used and remaining in the month) and overage",
  parse(args) {
    const { values, positionals } = parseCommandArgs(args, GRANTS, { month: { type: 'string' }, ...JSON_FLAG }, [
      '<org_id>',
    ]);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const month = optionalString(values, 'month') ?? billingMonth(new Date());
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError('--month must be YYYY-MM', GRANTS);
    return async (ctx) => {
      await ctx.beforeRead();
      const spending = await ctx.app.get(CreditGrantViews).spending(orgId, month);
      if (values.json) {
        ctx.json({ month, grants: spending.grants, overage: spending.overage });
        return 0;
      }
      ctx.out(
        spending.grants.length === 0
          ? `no credit grants in ${month}`
          : formatTable(
              ['GRANT', 'CREDITS', 'RECURRENCE', 'USED', 'REMAINING', 'EXPIRES', 'STATUS', 'NOTE'],
              spending.grants.map((g) => [
                g.grant_id,
                g.credits,
                g.recurrence,
                g.used,
                g.remaining,
                g.expires_at ?? '-',
                g.status,
                g.note ?? '',
              ]),
            ),
      );
      const o = spending.overage;
      ctx.out(
        o
          ? `overage in ${month}: ${o.credits_used} of ${o.credit_cap} credits at ${o.price_per_credit} = ${o.amount}`
          : 'no overage on this plan',
      );
      return 0;
    };
  },
};
