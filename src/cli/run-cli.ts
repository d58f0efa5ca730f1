import 'reflect-metadata';
import { HttpException } from '@nestjs/common';
import { ConfigError } from '../config/app-config.js';
import { WrongExpectedVersionError } from '../event-store/event-store.port.js';
import { UsageError } from './args.js';
import { CliContext } from './cli-context.js';
import type { CommandGroup, CommandRun } from './command.js';
import type { CommandScope } from './command-scope.js';
import { feedbackCommands } from './feedback.commands.js';
import { indexCommands } from './index.commands.js';
import { keyCommands } from './key.commands.js';
import { ledgerCommands } from './ledger.commands.js';
import { orgCommands } from './org.commands.js';
import { type CliIo, writeLine } from './output.js';
import { projectCommands } from './project.commands.js';
import { alertCommands } from './alert.commands.js';
import { projectionCommands } from './projections.commands.js';
import { translationCommands } from './translations.commands.js';
import { PROGRAM, fullUsage, groupUsage } from './usage.js';

export type { CliIo } from './output.js';

const GROUPS: readonly CommandGroup[] = [
  orgCommands,
  projectCommands,
  keyCommands,
  alertCommands,
  projectionCommands,
  ledgerCommands,
  translationCommands,
  indexCommands,
  feedbackCommands,
];
const HELP_FLAGS = new Set(['--help', '-h']);

type Resolved = { readonly help: string } | { readonly run: CommandRun; readonly scope: CommandScope };

/** Finds the command and validates its arguments, before anything connects. */
function resolveCommand(argv: readonly string[]): Resolved {
  const [first, second, ...rest] = argv;
  if (first === undefined || first === 'help' || HELP_FLAGS.has(first)) {
    const group = GROUPS.find((g) => g.name === second);
    if (second !== undefined && !group && !HELP_FLAGS.has(second)) {
      throw new UsageError(`unknown command ${JSON.stringify(second)}`);
    }
    return { help: group ? groupUsage(group) : fullUsage(GROUPS) };
  }
  const group = GROUPS.find((g) => g.name === first);
  if (!group) throw new UsageError(`unknown command ${JSON.stringify(first)}`);
  if (second === undefined || HELP_FLAGS.has(second)) {
    if (second === undefined) throw new UsageError(`${first}: missing subcommand`, groupUsage(group));
    return { help: groupUsage(group) };
  }
  const command = Object.hasOwn(group.commands, second) ? group.commands[second] : undefined;
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(`${first} ${second}`)}`, groupUsage(group));
  if (rest.some((arg) => HELP_FLAGS.has(arg)))
    return { help: `usage: ${PROGRAM} ${command.usage}\n  ${command.summary}` };
  return { run: command.parse(rest), scope: group.scope };
}

/**
 * The operator CLI: `argv` without the program (`['org', 'list']`), the environment to configure from, and where to
 * write. Resolves to the exit status: 0 done, 1 failed, 2 bad command line or configuration.
 */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let run: CommandRun;
  let scope: CommandScope;
  try {
    const resolved = resolveCommand(argv);
    if ('help' in resolved) {
      writeLine(io.stdout, resolved.help);
      return 0;
    }
    run = resolved.run;
    scope = resolved.scope;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    writeLine(io.stderr, `error: ${error.message}`);
    if (error.usage)
      writeLine(io.stderr, error.usage.includes('\n') ? error.usage : `usage: ${PROGRAM} ${error.usage}`);
    writeLine(io.stderr, `run \`${PROGRAM} help\` for every command`);
    return 2;
  }

  let ctx: CliContext | undefined;
  try {
    ctx = await CliContext.open(env, io, scope);
    return await run(ctx);
  } catch (error) {
    if (error instanceof ConfigError) {
      writeLine(io.stderr, error.message);
      return 2;
    }
    writeLine(io.stderr, `error: ${describeError(error)}`);
    if (env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace') writeLine(io.stderr, (error as Error).stack ?? '');
    return 1;
  } finally {
    await ctx?.close().catch((error: unknown) => writeLine(io.stderr, `error while closing: ${describeError(error)}`));
  }
}

/** One line for the operator: the domain's own message for a refused command, the cause for anything else. */
export function describeError(error: unknown): string {
  if (error instanceof HttpException) {
    const response = error.getResponse();
    if (typeof response === 'string') return response;
    const { message, error: text } = response as { message?: unknown; error?: unknown };
    if (typeof message === 'string') return message;
    if (Array.isArray(message)) return message.join('; ');
    if (typeof text === 'string') return text;
    return error.message;
  }
  if (error instanceof WrongExpectedVersionError) {
    return `a concurrent change to ${error.streamId} came first; run the command again`;
  }
  if (error instanceof AggregateError && error.errors.length > 0) {
    // e.g. ECONNREFUSED on every address of a host name: the aggregate itself has an empty message.
    return [...new Set(error.errors.map(describeError))].join('; ');
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = error.message || error.name;
    return code && ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT'].includes(code)
      ? `cannot reach the database or a service (${message})`
      : message;
  }
  return String(error);
}
