import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';
import { scaledOut } from './test-services.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A stream that keeps what is written to it, and the text written so far. */
function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/** The operator CLI in process (`org create`, `index`, `ledger verify`, ...), its output captured. */
export async function operatorCli(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<CliResult> {
  const stdout = capture();
  const stderr = capture();
  const code = await runCli(argv, scaledOut(env), { stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
