import path from 'node:path';
import { exportFeedbackDataset } from '../feedback/feedback-dataset.js';
import { isCalendarDate } from '../http/dto/calendar-date.js';
import { JSON_FLAG, UsageError, optionalString, parseCommandArgs, requiredString, uuidArgument } from './args.js';
import type { CliCommand, CommandGroup } from './command.js';

const EXPORT = 'feedback export <org_id> --out <dir> [--since YYYY-MM-DD] [--json]';
const exportDataset: CliCommand = {
  usage: EXPORT,
  summary:
    "write an organization's search feedback as a judged query set (BEIR layout: corpus.jsonl, queries.jsonl, " +
    'qrels/feedback.tsv) for `npm run eval:search <dir>`',
  parse(args) {
    const { values, positionals } = parseCommandArgs(
      args,
      EXPORT,
      { out: { type: 'string' }, since: { type: 'string' }, ...JSON_FLAG },
      ['<org_id>'],
    );
    const orgId = uuidArgument(positionals[0]!, 'org_id');
    const dir = path.resolve(requiredString(values, 'out', EXPORT));
    const sinceText = optionalString(values, 'since');
    if (sinceText !== undefined && !isCalendarDate(sinceText)) {
      throw new UsageError(`--since must be a date written YYYY-MM-DD, got ${JSON.stringify(sinceText)}`, EXPORT);
    }
    const since = sinceText === undefined ? null : new Date(`${sinceText}T00:00:00Z`);
    return async (ctx) => {
      const report = await exportFeedbackDataset(ctx.indexDb, orgId, dir, since);
      if (values.json) ctx.json({ dir, ...report });
      else {
        ctx.out(
          `${report.queries} judged queries (${report.judgments} judgments from ${report.feedback} feedback), ` +
            `${report.documents} pages written to ${dir}`,
        );
        if (report.notIndexed > 0) {
          ctx.out(`${report.notIndexed} judged pages are not in the local index: left out of corpus.jsonl`);
        }
        if (report.queries > 0) ctx.out(`evaluate: npm run eval:search ${dir}`);
      }
      return 0;
    };
  },
};

export const feedbackCommands: CommandGroup = {
  name: 'feedback',
  scope: 'control-plane',
  summary: 'search feedback (POST /feedback): export it as judged queries for eval:search',
  commands: { export: exportDataset },
};
