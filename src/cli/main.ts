import 'reflect-metadata';
import { runCli } from './run-cli.js';

/** `npm run cli -- <command>`: the operator CLI (see run-cli.ts). */
let status: number;
try {
  status = await runCli(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr });
} catch (error) {
  process.stderr.write(`unexpected failure: ${(error as Error).stack ?? String(error)}\n`);
  status = 1;
}
// Exit now rather than wait for idle sockets or timers of the closed application (stdout and stderr are
// synchronous for files, pipes and terminals on POSIX).
process.exit(status);
