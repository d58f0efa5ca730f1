import { SetAlertThresholdsCommand } from '../alerts/commands/set-alert-thresholds.command.js';
import { ALERT_SCOPES } from '../alerts/events/alert.events.js';
import { JSON_FLAG, UsageError, oneOf, parseCommandArgs, requiredString, uuidArgument } from './args.js';
import type { CliCommand, CommandGroup } from './command.js';
import { formatTable } from './output.js';

const THRESHOLDS = 'alert thresholds <org_id> --scope <organization|project|key> [--id <id>] --percent <list|none>';
const thresholds: CliCommand = {
  usage: THRESHOLDS,
  summary: "set the alert thresholds of the allowance, a project's or a key's limit (AlertThresholdsSet)",
  parse(args) {
    const { values, positionals } = parseCommandArgs(
      args,
      THRESHOLDS,
      { scope: { type: 'string' }, id: { type: 'string' }, percent: { type: 'string' } },
      ['<org_id>'],
    );
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const scope = oneOf(requiredString(values, 'scope', THRESHOLDS), ALERT_SCOPES, 'scope')!;
    const id = typeof values.id === 'string' ? uuidArgument(values.id, 'id') : undefined;
    if (scope !== 'organization' && id === undefined) throw new UsageError(`--id is required for ${scope}`, THRESHOLDS);
    const percent = requiredString(values, 'percent', THRESHOLDS);
    const list = percent === 'none' ? [] : percent.split(',').map((p) => Number(p.trim()));
    if (list.some((p) => !Number.isInteger(p) || p < 1 || p > 1000) || new Set(list).size !== list.length)
      throw new UsageError('--percent must be none or distinct whole percentages from 1 to 1000', THRESHOLDS);
    if (list.length > 10) throw new UsageError('--percent takes at most 10 thresholds', THRESHOLDS);
    return async (ctx) => {
      const sorted = [...list].sort((a, b) => a - b);
      const scopeId = scope === 'organization' ? orgId : id!;
      const set = await ctx.commands.execute(new SetAlertThresholdsCommand(orgId, scope, scopeId, sorted, ctx.actor));
      await ctx.afterWrite(set.position);
      ctx.out(
        `${scope} ${scopeId}: alert thresholds ${sorted.length ? sorted.map((p) => `${p}%`).join(', ') : 'none'}`,
      );
      return 0;
    };
  },
};

interface CrossedRow {
  event_id: string;
  scope: string;
  scope_id: string;
  billing_month: string;
  threshold: number;
  credits_used: string;
  credits_limit: string;
  crossed_at: Date;
}

const LIST = 'alert list <org_id> [--json]';
const list: CliCommand = {
  usage: LIST,
  summary: 'thresholds crossed in an organization, newest first, from the read models',
  parse(args) {
    const { values, positionals } = parseCommandArgs(args, LIST, JSON_FLAG, ['<org_id>']);
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    return async (ctx) => {
      await ctx.beforeRead();
      const { rows } = await ctx.db.query<CrossedRow>(
        'SELECT * FROM alerts_crossed WHERE org_id = $1 ORDER BY crossed_at DESC, event_id',
        [orgId],
      );
      const alerts = rows.map((r) => ({
        id: r.event_id,
        scope: r.scope,
        scope_id: r.scope_id,
        billing_month: r.billing_month,
        threshold: r.threshold,
        credits_used: Number(r.credits_used),
        credits_limit: Number(r.credits_limit),
        crossed_at: r.crossed_at.toISOString(),
      }));
      if (values.json) ctx.json(alerts);
      else if (alerts.length === 0) ctx.out('no alerts');
      else
        ctx.out(
          formatTable(
            ['CROSSED', 'MONTH', 'SCOPE', 'ID', 'THRESHOLD', 'USED', 'LIMIT'],
            alerts.map((a) => [
              a.crossed_at,
              a.billing_month,
              a.scope,
              a.scope_id,
              `${a.threshold}%`,
              a.credits_used,
              a.credits_limit,
            ]),
          ),
        );
      return 0;
    };
  },
};

export const alertCommands: CommandGroup = {
  name: 'alert',
  scope: 'control-plane',
  summary: 'alert thresholds and the alerts crossed',
  commands: { thresholds, list },
};
