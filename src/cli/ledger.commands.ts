import { type LedgerVerifyReport, verifyLedger } from '../../projections/verify-ledger.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import { JSON_FLAG, parseCommandArgs } from './args.js';
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
  if (report.ok) ctx.out(`ledger matches the events: ${report.charges} charges, ${report.credits} credits`);
  else ctx.out('`projections rebuild` rebuilds the read models; a counter is reseeded once it is deleted');
}

const VERIFY = 'ledger verify [--json]';
const verify: CliCommand = {
  usage: VERIFY,
  summary:
    're-sum every charge from the events and compare with monthly_totals, usage_daily, monthly_units, ' +
    'ledger_entries (up to the projection checkpoint) and the Redis counters (exit 1 on a difference)',
  parse(args) {
    const { values } = parseCommandArgs(args, VERIFY, JSON_FLAG);
    return async (ctx) => {
      const progress = startProgress(ctx.io.stderr, 'reading events', undefined);
      let report;
      try {
        report = await verifyLedger(ctx.db, ctx.store, {
          redis: ctx.config.redisUrl ? ctx.app.get<RedisClient | null>(REDIS) : null,
          redisPrefix: ctx.config.redisPrefix,
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

export const ledgerCommands: CommandGroup = {
  name: 'ledger',
  scope: 'control-plane',
  summary: 'the usage ledger: verify the read models and counters against the events',
  commands: { verify },
};
