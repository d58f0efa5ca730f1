import { type LedgerVerifyReport, verifyLedger } from '../../projections/verify-ledger.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import { LedgerAdjuster } from '../metering/statements/ledger-adjuster.js';
import { StatementCloser } from '../metering/statements/statement-closer.js';
import { MONTH_PATTERN } from '../metering/statements/statement-summary.js';
import { JSON_FLAG, UsageError, optionalString, parseCommandArgs, requiredString, uuidArgument } from './args.js';
import type { CliContext } from './cli-context.js';
import type { CliCommand, CommandGroup } from './command.js';
import { formatTable } from './output.js';
import { startProgress } from './progress.js';

function printReport(ctx: CliContext, report: LedgerVerifyReport): void {
  if (!report.ok) {
    ctx.out(`the ledger differs from the events (read models at checkpoint ${report.checkpoint}):`);
    ctx.out(
      formatTable(
        ['TABLE/COUNTER', 'KEY', 'FIELD', 'EXPECTED', 'ACTUAL'],
        report.differences.map((d) => [d.source, d.key, d.field, d.expected, d.actual]),
      ),
    );
  }
  if (report.differences.some((d) => d.source === 'redis:quota')) {
    ctx.out(
      '(a quota counter also holds the reservations of calls still running: if the data plane was busy, run again)',
    );
  }
  if (report.notYetProjected > 0) ctx.out(`not yet projected: ${report.notYetProjected}`);
  const statements = report.statements > 0 ? `, ${report.statements} statements` : '';
  if (report.ok)
    ctx.out(`ledger matches the events: ${report.charges} charges, ${report.credits} credits${statements}`);
  else ctx.out('`projections rebuild` rebuilds the read models; a counter is reseeded once it is deleted');
}

const VERIFY = 'ledger verify [--json]';
const verify: CliCommand = {
  usage: VERIFY,
  summary:
    're-sum every charge from the events and compare with monthly_totals, usage_daily, monthly_units, ' +
    "ledger_entries (up to the projection checkpoint) and the Redis counters, recompute every live charge's " +
    'split (allowance, grants, overage) and compare with charge_allocations, and recompute every statement ' +
    'from the events up to the position it covers (exit 1 on a difference)',
  parse(args) {
    const { values } = parseCommandArgs(args, VERIFY, JSON_FLAG);
    return async (ctx) => {
      const progress = startProgress(ctx.io.stderr, 'reading events', undefined);
      let report;
      try {
        report = await verifyLedger(ctx.db, ctx.store, {
          redis: ctx.app.get<RedisClient | null>(REDIS),
          redisPrefix: ctx.config.redisPrefix,
          redisCluster: ctx.config.redisClusterNodes.length > 0,
          onProgress: (n) => progress.update(n),
        });
      } finally {
        progress.stop();
      }
      if (values.json) ctx.json(report);
      else printReport(ctx, report);
      return report.ok ? 0 : 1;
    };
  },
};

function monthArgument(value: string, flag: string, usage: string): string {
  if (!MONTH_PATTERN.test(value)) throw new UsageError(`--${flag} must be a month written YYYY-MM`, usage);
  return value;
}

const CLOSE = 'ledger close --month YYYY-MM [--org <org_id>] [--json]';
const close: CliCommand = {
  usage: CLOSE,
  summary:
    "close a month into a statement per organization (every organization's, or one's); a month closes once, " +
    'after its end plus STATEMENT_GRACE_DAYS',
  parse(args) {
    const { values } = parseCommandArgs(args, CLOSE, {
      month: { type: 'string' },
      org: { type: 'string' },
      ...JSON_FLAG,
    });
    const month = monthArgument(requiredString(values, 'month', CLOSE), 'month', CLOSE);
    const org = optionalString(values, 'org');
    const orgId = org === undefined ? undefined : uuidArgument(org, '--org');
    return async (ctx) => {
      const closer = ctx.app.get(StatementCloser);
      if (!closer.isClosable(month)) {
        ctx.out(`${month} cannot close yet: it closes ${ctx.config.statementGraceDays} days after its end`);
        return 1;
      }
      let orgIds = orgId ? [orgId] : undefined;
      if (!orgIds) {
        await ctx.beforeRead();
        const { rows } = await ctx.db.query<{ org_id: string }>(
          'SELECT org_id::text AS org_id FROM organizations ORDER BY org_id',
        );
        orgIds = rows.map((r) => r.org_id);
      } else {
        const found = await ctx.db.query('SELECT 1 FROM organizations WHERE org_id = $1', [orgId]);
        if (found.rows.length === 0) {
          ctx.out(`organization ${orgId} not found`);
          return 1;
        }
      }
      const outcomes = [];
      for (const id of orgIds) outcomes.push(await closer.close(id, month, ctx.actor));
      let last = null;
      for (const o of outcomes) if (o.outcome === 'closed') last = o.position;
      await ctx.afterWrite(last);
      if (values.json) ctx.json({ month, statements: outcomes.map(({ org_id, outcome }) => ({ org_id, outcome })) });
      else
        for (const o of outcomes)
          ctx.out(`${o.org_id} ${month}: ${o.outcome === 'closed' ? 'statement issued' : 'already closed'}`);
      return 0;
    };
  },
};

const CREDITS = /^[+-]?\d{1,12}(\.\d{1,4})?$/;
const ADJUST = 'ledger adjust --org <org_id> --credits=<±n> --reason <text> --corrects YYYY-MM [--json]';
const adjust: CliCommand = {
  usage: ADJUST,
  summary:
    'correct a closed month: an adjustment of ±n credits booked in the open month, naming the month it corrects, ' +
    'with a reason (the operator is recorded as its actor)',
  parse(args) {
    const { values } = parseCommandArgs(args, ADJUST, {
      org: { type: 'string' },
      credits: { type: 'string' },
      reason: { type: 'string' },
      corrects: { type: 'string' },
      ...JSON_FLAG,
    });
    const orgId = uuidArgument(requiredString(values, 'org', ADJUST), '--org');
    const raw = requiredString(values, 'credits', ADJUST);
    const credits = CREDITS.test(raw) ? Number(raw) : NaN;
    if (!Number.isFinite(credits) || credits === 0) {
      throw new UsageError(
        '--credits must be a non-zero number of credits (up to 4 decimals), e.g. --credits=-25',
        ADJUST,
      );
    }
    const reason = requiredString(values, 'reason', ADJUST);
    if (reason.length > 500) throw new UsageError('--reason must be at most 500 characters', ADJUST);
    const corrects = monthArgument(requiredString(values, 'corrects', ADJUST), 'corrects', ADJUST);
    return async (ctx) => {
      let result;
      try {
        result = await ctx.app.get(LedgerAdjuster).adjust(orgId, corrects, credits, reason, ctx.actor);
      } catch (error) {
        if ((error as Error).name !== 'AdjustmentRefusedError') throw error;
        ctx.out((error as Error).message);
        return 1;
      }
      await ctx.afterWrite(result.position);
      if (values.json) ctx.json({ ...result.adjustment, actor: ctx.actor });
      else
        ctx.out(
          `adjustment ${result.adjustment.adjustment_id}: ${credits} credits in ${result.adjustment.month}, ` +
            `correcting ${corrects} (${ctx.actor.type} ${ctx.actor.id})`,
        );
      return 0;
    };
  },
};

export const ledgerCommands: CommandGroup = {
  name: 'ledger',
  scope: 'control-plane',
  summary: 'the usage ledger: verify it against the events, close months into statements, adjust closed months',
  commands: { verify, close, adjust },
};
