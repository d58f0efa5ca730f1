/** `npm run eval:search <dir> [options]`: see evaluate-search.ts. */
import { parseArgs, runEvaluation } from './evaluate-search.js';

async function main(): Promise<void> {
  await runEvaluation(parseArgs(process.argv.slice(2)), {
    databaseUrl: process.env.DATABASE_URL,
    keep: Boolean(process.env.EVAL_KEEP),
    out: (line = '') => process.stdout.write(`${line}\n`),
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message ?? String(error)}\n`);
  process.exit(1);
});
