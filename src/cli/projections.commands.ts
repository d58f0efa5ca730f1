import { performance } from 'node:perf_hooks';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../../projections/read-models/index.js';
import { rebuildReadModels } from '../../projections/rebuild.js';
import { type VerifyReport, verifyReadModels } from '../../projections/verify.js';
import { type From, START } from '../event-store/event-store.port.js';
import { JSON_FLAG, parseCommandArgs } from './args.js';
import type { CliContext } from './cli-context.js';
import type { CliCommand, CommandGroup } from './command.js';
import { startProgress } from './progress.js';

/**
 * How many events a replay up to `until` will read, when that is cheap to know: the PostgreSQL table store can
 * count its rows; EventStoreDB cannot without reading them all, so its progress is an indeterminate counter.
 */
async function countEvents(ctx: CliContext, until?: From): Promise<number | undefined> {
  if (ctx.config.eventStoreUrl) return undefined;
  if (until === START) return 0;
  const { rows } = until
    ? await ctx.db.query<{ count: string }>(
        'SELECT count(*) FROM events WHERE (transaction_id, global_position) <= ($1::bigint, $2::bigint)',
        [until.commit.toString(), until.prepare.toString()],
      )
    : await ctx.db.query<{ count: string }>('SELECT count(*) FROM events');
  return Number(rows[0]?.count ?? 0);
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const REBUILD = 'projections rebuild';
const rebuild: CliCommand = {
  usage: REBUILD,
  summary: 'rebuild every read model from the events and swap it in (safe while servers run)',
  parse(args) {
    parseCommandArgs(args, REBUILD, {});
    return async (ctx) => {
      const started = performance.now();
      const progress = startProgress(ctx.io.stderr, 'rebuilding', await countEvents(ctx));
      let result;
      try {
        result = await rebuildReadModels(ctx.db, ctx.store, {
          checkpointName: READ_MODELS_CHECKPOINT,
          projectors: READ_MODEL_PROJECTORS,
          onProgress: (n) => progress.update(n),
        });
      } finally {
        progress.stop();
      }
      const tables = READ_MODEL_PROJECTORS.flatMap((p) => p.tables);
      ctx.out(`rebuilt ${tables.length} read-model tables from ${result.events} events in ${seconds(started)}`);
      return 0;
    };
  },
};

function printDifferences(ctx: CliContext, report: VerifyReport): void {
  ctx.out(`read models differ from the events (${report.events} events replayed):`);
  for (const d of report.differences) {
    ctx.out(`  ${d.table}: ${d.onlyLive} row(s) only in the live table, ${d.onlyRebuilt} only in the rebuild`);
    for (const { side, ...row } of d.sample) ctx.out(`    ${String(side).padEnd(7)} ${JSON.stringify(row)}`);
  }
  ctx.out('run `projections rebuild` to replace the read models with the rebuild');
}

const VERIFY = 'projections verify [--json]';
const verify: CliCommand = {
  usage: VERIFY,
  summary: 'rebuild the read models aside and compare them row by row with the live ones (exit 1 on a difference)',
  parse(args) {
    const { values } = parseCommandArgs(args, VERIFY, JSON_FLAG);
    return async (ctx) => {
      const progress = startProgress(ctx.io.stderr, 'verifying', await countEvents(ctx, await ctx.runner.checkpoint()));
      let report;
      try {
        report = await verifyReadModels(ctx.db, ctx.store, {
          checkpointName: READ_MODELS_CHECKPOINT,
          projectors: READ_MODEL_PROJECTORS,
          onProgress: (n) => progress.update(n),
        });
      } finally {
        progress.stop();
      }
      if (values.json) ctx.json(report);
      else if (report.ok) ctx.out(`read models match the events (${report.events} events)`);
      else printDifferences(ctx, report);
      return report.ok ? 0 : 1;
    };
  },
};

export const projectionCommands: CommandGroup = {
  name: 'projections',
  scope: 'control-plane',
  summary: 'read models: rebuild from the events, verify against them',
  commands: { rebuild, verify },
};
